// Built instead of cuda.cpp when screen is built without CUDA: no GPU, and the GPU entry point says
// so with a ResourceError.
#include "common/error.hpp"
#include "stages/bpmax/cuda.hpp"

namespace screen::bpmax {

struct GpuBuffers::Impl {};
GpuBuffers::GpuBuffers() = default;
GpuBuffers::~GpuBuffers() = default;
void GpuBuffers::release() {}
std::size_t GpuBuffers::bytes() const { return 0; }

bool gpu_available() { return false; }

std::size_t gpu_table_bytes(int, int, const Params&) { return 0; }

std::vector<PairResult> interact_pairs_gpu(const std::vector<PairInput>&, const Params&, TracebackMode,
                                           const GpuOptions&, GpuStats*) {
  throw ResourceError("BPMax on the GPU: this screen was built without CUDA");
}

GpuScores score_pairs_gpu(const std::vector<PairInput>&, const Params&, TracebackMode, const GpuOptions&, GpuStats*) {
  throw ResourceError("BPMax on the GPU: this screen was built without CUDA");
}

std::vector<std::vector<std::int32_t>> window_upper_bounds_gpu(const std::vector<PairInput>&, const Params&,
                                                              const GpuOptions&) {
  throw ResourceError("BPMax on the GPU: this screen was built without CUDA");
}

void trace_gpu_sites(const std::vector<PairInput>&, const Params&, GpuScores& scores, int) {
  if (!scores.to_trace.empty()) throw ResourceError("BPMax on the GPU: this screen was built without CUDA");
}

}  // namespace screen::bpmax
