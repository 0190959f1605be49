// Built instead of cuda.cpp when screen is built without CUDA: no GPU, and the GPU entry point says
// so with a ResourceError.
#include "common/error.hpp"
#include "stages/miranda/cuda.hpp"

namespace screen::miranda {

bool gpu_available() { return false; }

std::vector<PairCandidates> scan_candidates_gpu(const SeqView*, std::size_t, const SeqView*, std::size_t,
                                                const ScoreModel&, const GpuScanOptions&, GpuScanStats*) {
  throw ResourceError("miRanda on the GPU: this screen was built without CUDA");
}

}  // namespace screen::miranda
