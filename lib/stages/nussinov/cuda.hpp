#pragma once
// Host side of the Nussinov CUDA path (implemented in cuda.cpp over kernels/nussinov/).
// Built only with CUDA; without it, gpu_available() is false and the fold functions throw
// ResourceError saying the build has no CUDA.
#include <cstdint>
#include <vector>

#include "stages/nussinov/nussinov_defs.hpp"
#include "stages/nussinov/reference.hpp"

namespace screen::nussinov {

bool gpu_available();

// One long sequence over the whole GPU (tiled max-plus, packed upper triangle, 16- or 32-bit cells).
FoldResult fold_gpu_long(const std::uint8_t* s, int n, const Params& p, bool with_traceback, int device = 0);

// Many sequences of mixed lengths folded in few launches. seqs[i] points to lengths[i] codes.
std::vector<FoldResult> fold_gpu_batch(const std::vector<const std::uint8_t*>& seqs, const std::vector<int>& lengths,
                                       const Params& p, bool with_traceback, int device = 0);

}  // namespace screen::nussinov
