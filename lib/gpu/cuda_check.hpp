#pragma once
// CUDA_CHECK(call): every CUDA runtime call goes through it; a failure throws screen::ResourceError
// naming the call, the file and line, and CUDA's own message.
#include <cuda_runtime.h>

#include <string>

#include "common/error.hpp"

namespace screen::gpu {

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  throw ResourceError(std::string("CUDA error in ") + call + " at " + file + ":" + std::to_string(line) +
                      ": " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
}

}  // namespace screen::gpu

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t screen_cuda_err_ = (call);                                      \
    if (screen_cuda_err_ != cudaSuccess)                                        \
      ::screen::gpu::throw_cuda_error(screen_cuda_err_, #call, __FILE__, __LINE__); \
  } while (0)

// After a kernel launch: catches launch-configuration errors at once.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
