#pragma once
// RAII CUDA stream (non-blocking) and event pair, for the GPU paths' host code.
#include <cuda_runtime.h>

#include "gpu/cuda_check.hpp"

namespace screen::gpu {

class Stream {
 public:
  Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(s_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }
  void synchronize() const { CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_{};
};

// Events around a piece of device work, for statistics.
class EventPair {
 public:
  EventPair() {
    CUDA_CHECK(cudaEventCreate(&start_));
    CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~EventPair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  void start(cudaStream_t s) { CUDA_CHECK(cudaEventRecord(start_, s)); }
  void stop(cudaStream_t s) { CUDA_CHECK(cudaEventRecord(stop_, s)); }
  // Milliseconds between the two (both must have completed).
  double ms() const {
    float v = 0;
    CUDA_CHECK(cudaEventElapsedTime(&v, start_, stop_));
    return v;
  }

 private:
  cudaEvent_t start_{}, stop_{};
};

}  // namespace screen::gpu
