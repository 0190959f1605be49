// miRanda fast CPU path: the AVX2 instantiation of the scan kernel (16 lanes of 16 bits). Compiled
// for AVX2 by a target pragma around the kernel only, so that the default build runs on any x86-64
// CPU; cpu_scan.cpp calls scan_avx2 only where __builtin_cpu_supports("avx2") says so. The
// profiles cost one byte shuffle per column each: the step array holds code | (code + 8) << 8 per
// lane, and the 16-byte table of a profile holds the score's low byte at 0..4 and its sign byte at
// 8..12.
#if defined(__x86_64__) || defined(_M_X64)

#include <cstddef>
#include <cstdint>
#include <immintrin.h>

#include "stages/miranda/miranda_defs.hpp"

#pragma GCC push_options
#pragma GCC target("avx2")

#define SCREEN_MIRANDA_SCAN_KERNEL
#include "stages/miranda/cpu_scan_kernel.hpp"

namespace screen::miranda::scan_detail {
namespace {

struct Avx2Ops {
  using V = __m256i;
  using E = std::int16_t;
  static constexpr int L = 16;
  static V zero() { return _mm256_setzero_si256(); }
  static V set1(int x) { return _mm256_set1_epi16(static_cast<short>(x)); }
  static V add(V a, V b) { return _mm256_adds_epi16(a, b); }
  static V max(V a, V b) { return _mm256_max_epi16(a, b); }
  static V keep(V v, V mask) { return _mm256_and_si256(v, mask); }
  static V load_mask(const std::int16_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static bool any_gt(V a, V b) { return _mm256_movemask_epi8(_mm256_cmpgt_epi16(a, b)) != 0; }
  static void store(E* p, V v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static void prepare(const ScanJob& job, V* tables) {
    for (int k = 0; k < kCombos; ++k)
      tables[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(job.shuffle[k])));
  }
  static void profiles(const ScanJob& job, const V* tables, const std::int16_t* idx, V* prof) {
    const V x = load_mask(idx);
    for (int k = 0; k < job.n_combos; ++k) prof[job.combos[k]] = _mm256_shuffle_epi8(tables[job.combos[k]], x);
  }
};

void scan_avx2_impl(const ScanJob& job, void* work) { scan_kernel<Avx2Ops>(job, work); }

}  // namespace
}  // namespace screen::miranda::scan_detail

#pragma GCC pop_options

namespace screen::miranda::scan_detail {
void scan_avx2(const ScanJob& job, void* work) { scan_avx2_impl(job, work); }
}  // namespace screen::miranda::scan_detail

#endif
