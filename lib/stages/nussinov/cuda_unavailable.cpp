// Built instead of cuda.cpp when screen is built without CUDA: no GPU, and the GPU entry points
// say so with a ResourceError.
#include "common/error.hpp"
#include "stages/nussinov/cuda.hpp"

namespace screen::nussinov {

bool gpu_available() { return false; }

FoldResult fold_gpu_long(const std::uint8_t*, int, const Params&, bool, int) {
  throw ResourceError("Nussinov on the GPU: this screen was built without CUDA");
}

std::vector<FoldResult> fold_gpu_batch(const std::vector<const std::uint8_t*>&, const std::vector<int>&,
                                       const Params&, bool, int) {
  throw ResourceError("Nussinov on the GPU: this screen was built without CUDA");
}

}  // namespace screen::nussinov
