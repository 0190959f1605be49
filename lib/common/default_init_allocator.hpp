#pragma once
// An allocator whose value-less construct() default-initialises: a std::vector of numbers resized
// with it is left unwritten, so that a large table can be zeroed (first touched) in parallel by the
// threads that will use it instead of serially by resize().
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace screen {

template <class T>
class DefaultInitAllocator : public std::allocator<T> {
 public:
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() noexcept = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)

  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

// A vector whose resize() leaves new numbers unwritten.
template <class T>
using UninitVector = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace screen
