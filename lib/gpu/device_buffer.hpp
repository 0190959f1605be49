#pragma once
// DeviceBuffer<T>: RAII ownership of a cudaMalloc'd array. Move-only; frees on destruction.
// PinnedBuffer<T>: the same for page-locked host memory (cudaMallocHost), for asynchronous copies.
// Both share OwnedBuffer<T, Memory>, which holds the pointer and count for one allocation policy.
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "gpu/cuda_check.hpp"

namespace screen::gpu {

namespace detail {

struct DeviceMemory {
  static void allocate(void** ptr, std::size_t bytes) { CUDA_CHECK(cudaMalloc(ptr, bytes)); }
  // Never throws from a destructor; a failure here is not recoverable.
  static void release(void* ptr) noexcept { cudaFree(ptr); }
};

struct PinnedMemory {
  static void allocate(void** ptr, std::size_t bytes) { CUDA_CHECK(cudaMallocHost(ptr, bytes)); }
  static void release(void* ptr) noexcept { cudaFreeHost(ptr); }  // never throws from a destructor
};

// Move-only owner of count elements of T allocated by Memory.
template <typename T, typename Memory>
class OwnedBuffer {
 public:
  OwnedBuffer() = default;
  explicit OwnedBuffer(std::size_t count) { allocate(count); }
  ~OwnedBuffer() { release(); }

  OwnedBuffer(const OwnedBuffer&) = delete;
  OwnedBuffer& operator=(const OwnedBuffer&) = delete;
  OwnedBuffer(OwnedBuffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  OwnedBuffer& operator=(OwnedBuffer&& other) noexcept {
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
    Memory::allocate(reinterpret_cast<void**>(&ptr_), count * sizeof(T));
    count_ = count;
  }

  T* get() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

 private:
  void release() noexcept {
    if (ptr_) Memory::release(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace detail

template <typename T>
class DeviceBuffer : public detail::OwnedBuffer<T, detail::DeviceMemory> {
  using Base = detail::OwnedBuffer<T, detail::DeviceMemory>;

 public:
  using Base::Base;

  void upload(const T* host, std::size_t count, cudaStream_t stream = nullptr) {
    if (count > this->size()) this->allocate(count);
    if (count) CUDA_CHECK(cudaMemcpyAsync(this->get(), host, count * sizeof(T), cudaMemcpyHostToDevice, stream));
  }
  void upload(const std::vector<T>& host, cudaStream_t stream = nullptr) {
    upload(host.data(), host.size(), stream);
  }
  void download(T* host, std::size_t count, cudaStream_t stream = nullptr) const {
    if (count) CUDA_CHECK(cudaMemcpyAsync(host, this->get(), count * sizeof(T), cudaMemcpyDeviceToHost, stream));
  }
  std::vector<T> to_host() const {
    std::vector<T> out(this->size());
    download(out.data(), this->size());
    CUDA_CHECK(cudaDeviceSynchronize());
    return out;
  }
  void fill_zero(cudaStream_t stream = nullptr) {
    if (this->size()) CUDA_CHECK(cudaMemsetAsync(this->get(), 0, this->bytes(), stream));
  }
};

template <typename T>
class PinnedBuffer : public detail::OwnedBuffer<T, detail::PinnedMemory> {
  using Base = detail::OwnedBuffer<T, detail::PinnedMemory>;

 public:
  using Base::Base;

  // Grows (contents not kept) when smaller than count.
  void reserve(std::size_t count) {
    if (count > this->size()) this->allocate(count);
  }
  T& operator[](std::size_t k) const noexcept { return this->get()[k]; }
};

}  // namespace screen::gpu
