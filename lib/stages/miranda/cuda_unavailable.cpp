// Built instead of cuda.cpp when screen is built without CUDA: no GPU, and the GPU entry points say
// so with a ResourceError.
#include "common/error.hpp"
#include "stages/miranda/cuda.hpp"

namespace screen::miranda {

namespace {
[[noreturn]] void no_cuda() { throw ResourceError("miRanda on the GPU: this screen was built without CUDA"); }
}  // namespace

bool gpu_available() { return false; }

struct GpuScanner::Impl {};

GpuScanner::GpuScanner(const SeqView*, std::size_t, const SeqView*, std::size_t, const ScoreModel&,
                       const GpuScanOptions&) {
  no_cuda();
}
GpuScanner::~GpuScanner() = default;
const std::vector<std::size_t>& GpuScanner::cpu_queries() const { no_cuda(); }
std::size_t GpuScanner::batches() const { no_cuda(); }
std::size_t GpuScanner::targets_done(std::size_t) const { no_cuda(); }
void GpuScanner::submit(std::size_t) { no_cuda(); }
void GpuScanner::collect(std::size_t, std::vector<FoundCandidate>&) { no_cuda(); }
const GpuScanStats& GpuScanner::stats() const { no_cuda(); }

std::vector<PairCandidates> scan_candidates_gpu(const SeqView*, std::size_t, const SeqView*, std::size_t,
                                                const ScoreModel&, const GpuScanOptions&, GpuScanStats*) {
  no_cuda();
}

}  // namespace screen::miranda
