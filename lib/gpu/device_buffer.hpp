#pragma once
// DeviceBuffer<T>: RAII ownership of a cudaMalloc'd array. Move-only; frees on destruction.
// PinnedBuffer<T>: the same for page-locked host memory (cudaMallocHost), for asynchronous copies.
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "gpu/cuda_check.hpp"

namespace screen::gpu {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) { allocate(count); }
  ~DeviceBuffer() { release(); }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      ptr_ = std::exchange(other.ptr_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }

  void allocate(std::size_t count) {
    release();
    if (count == 0) return;
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T)));
    count_ = count;
  }

  void upload(const T* host, std::size_t count, cudaStream_t stream = nullptr) {
    if (count > count_) allocate(count);
    if (count) CUDA_CHECK(cudaMemcpyAsync(ptr_, host, count * sizeof(T), cudaMemcpyHostToDevice, stream));
  }
  void upload(const std::vector<T>& host, cudaStream_t stream = nullptr) {
    upload(host.data(), host.size(), stream);
  }
  void download(T* host, std::size_t count, cudaStream_t stream = nullptr) const {
    if (count) CUDA_CHECK(cudaMemcpyAsync(host, ptr_, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
  }
  std::vector<T> to_host() const {
    std::vector<T> out(count_);
    download(out.data(), count_);
    CUDA_CHECK(cudaDeviceSynchronize());
    return out;
  }
  void fill_zero(cudaStream_t stream = nullptr) {
    if (count_) CUDA_CHECK(cudaMemsetAsync(ptr_, 0, count_ * sizeof(T), stream));
  }

  T* get() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

 private:
  void release() noexcept {
    if (ptr_) cudaFree(ptr_);  // never throws from a destructor; a failure here is not recoverable
    ptr_ = nullptr;
    count_ = 0;
  }
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count) { allocate(count); }
  ~PinnedBuffer() { release(); }

  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  PinnedBuffer(PinnedBuffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    if (this != &other) {
      release();
      ptr_ = std::exchange(other.ptr_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }

  // Contents are not kept.
  void allocate(std::size_t count) {
    release();
    if (count == 0) return;
    CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&ptr_), count * sizeof(T)));
    count_ = count;
  }
  // Grows (contents not kept) when smaller than count.
  void reserve(std::size_t count) {
    if (count > count_) allocate(count);
  }

  T* get() const noexcept { return ptr_; }
  T& operator[](std::size_t k) const noexcept { return ptr_[k]; }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

 private:
  void release() noexcept {
    if (ptr_) cudaFreeHost(ptr_);  // never throws from a destructor
    ptr_ = nullptr;
    count_ = 0;
  }
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace screen::gpu
