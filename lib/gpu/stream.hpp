#pragma once
// RAII CUDA stream (non-blocking), ordering event and event pair, for the GPU paths' host code.
#include <cuda_runtime.h>

#include <utility>

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

// An event that orders work between streams (no timing): record on one stream, wait on another.
class Event {
 public:
  Event() { CUDA_CHECK(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming)); }
  ~Event() {
    if (e_) cudaEventDestroy(e_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& o) noexcept : e_(o.e_) { o.e_ = nullptr; }
  Event& operator=(Event&& o) noexcept {
    std::swap(e_, o.e_);
    return *this;
  }
  void record(cudaStream_t s) { CUDA_CHECK(cudaEventRecord(e_, s)); }
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_{};
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
