// The fast CPU path: tiled wavefront over the mirrored table (see tiled.hpp), with a register-blocked
// max-plus bulk kernel. The kernels are compiled twice (AVX2 and the x86-64 baseline) and picked at
// load time (GCC function multi-versioning); g++ -O3 vectorises both.
#include <algorithm>
#include <cstdint>

#include "stages/nussinov/cpu.hpp"
#include "stages/nussinov/compact.hpp"
#include "stages/nussinov/tiled.hpp"
#include "stages/nussinov/traceback.hpp"

#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__))
#define SCREEN_NUSS_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SCREEN_NUSS_CLONES
#endif

namespace screen::nussinov {

namespace {

constexpr int kTile = 64;      // B: tile edge
constexpr int kRowGroup = 16;  // rows per parallel bulk work item
constexpr int kChunk = 1024;   // k per pass, so the row group's segments stay in L1/L2

// out[r * 4 + c] = max(out, max_k a_r[k] + b_c[k]) for two rows and four columns at once: six
// loads feed eight max-plus updates, and the eight accumulators stay in vector registers.
template <class T>
inline void maxplus_2x4(const T* __restrict a0, const T* __restrict a1, const T* const* b, int len,
                        std::int32_t* out) {
  const T* __restrict b0 = b[0];
  const T* __restrict b1 = b[1];
  const T* __restrict b2 = b[2];
  const T* __restrict b3 = b[3];
  T m00 = static_cast<T>(out[0]), m01 = static_cast<T>(out[1]), m02 = static_cast<T>(out[2]),
    m03 = static_cast<T>(out[3]), m10 = static_cast<T>(out[4]), m11 = static_cast<T>(out[5]),
    m12 = static_cast<T>(out[6]), m13 = static_cast<T>(out[7]);
  for (int k = 0; k < len; ++k) {
    const T x0 = a0[k], x1 = a1[k], y0 = b0[k], y1 = b1[k], y2 = b2[k], y3 = b3[k];
    m00 = std::max<T>(m00, static_cast<T>(x0 + y0));
    m01 = std::max<T>(m01, static_cast<T>(x0 + y1));
    m02 = std::max<T>(m02, static_cast<T>(x0 + y2));
    m03 = std::max<T>(m03, static_cast<T>(x0 + y3));
    m10 = std::max<T>(m10, static_cast<T>(x1 + y0));
    m11 = std::max<T>(m11, static_cast<T>(x1 + y1));
    m12 = std::max<T>(m12, static_cast<T>(x1 + y2));
    m13 = std::max<T>(m13, static_cast<T>(x1 + y3));
  }
  out[0] = m00;
  out[1] = m01;
  out[2] = m02;
  out[3] = m03;
  out[4] = m10;
  out[5] = m11;
  out[6] = m12;
  out[7] = m13;
}

SCREEN_NUSS_CLONES void kernel16(const std::int16_t* a0, const std::int16_t* a1, const std::int16_t* const* b, int len,
                                 std::int32_t* out) {
  maxplus_2x4(a0, a1, b, len, out);
}
SCREEN_NUSS_CLONES void kernel32(const std::int32_t* a0, const std::int32_t* a1, const std::int32_t* const* b, int len,
                                 std::int32_t* out) {
  maxplus_2x4(a0, a1, b, len, out);
}
inline void kernel(const std::int16_t* a0, const std::int16_t* a1, const std::int16_t* const* b, int len,
                   std::int32_t* out) {
  kernel16(a0, a1, b, len, out);
}
inline void kernel(const std::int32_t* a0, const std::int32_t* a1, const std::int32_t* const* b, int len,
                   std::int32_t* out) {
  kernel32(a0, a1, b, len, out);
}

template <class T>
FoldResult run(const std::uint8_t* s, int n, const Params& p, bool with_traceback, int threads) {
  detail::MirrorTable<T> t(n);
  auto bulk = [&t](int bi, int bj, int r0, int r1) {
    const int n_ = t.n;
    const int I1 = std::min(n_, (bi + 1) * kTile);
    const int J0 = bj * kTile, J1 = std::min(n_, J0 + kTile);
    const int kb = I1 - 1, ke = J0;  // k in [kb, ke)
    for (int i = r0; i < r1; ++i) std::fill(t.row(i) + J0, t.row(i) + J1, T(0));
    // Column pair outer, row pairs inner: the two column segments stay in L1 while the row group's
    // segments (kRowGroup x kChunk cells) are reused from L1 too.
    for (int c0 = kb; c0 < ke; c0 += kChunk) {
      const int len = std::min(kChunk, ke - c0);
      for (int j = J0; j < J1; j += 4) {
        int jc[4];
        const T* cb[4];
        for (int c = 0; c < 4; ++c) {
          jc[c] = std::min(j + c, J1 - 1);  // a short last block repeats its last column
          cb[c] = t.row(jc[c]) + c0 + 1;
        }
        for (int i = r0; i < r1; i += 2) {
          const int i1 = std::min(i + 1, r1 - 1);
          T* ra = t.row(i);
          T* rb = t.row(i1);
          std::int32_t out[8];
          for (int c = 0; c < 4; ++c) {
            out[c] = ra[jc[c]];
            out[4 + c] = rb[jc[c]];
          }
          kernel(ra + c0, rb + c0, cb, len, out);
          for (int c = 0; c < 4; ++c) {
            ra[jc[c]] = static_cast<T>(out[c]);
            rb[jc[c]] = static_cast<T>(out[4 + c]);
          }
        }
      }
    }
  };
  detail::run_wavefront(t, s, p, kTile, kRowGroup, threads, bulk, [](int, int) {});
  FoldResult r;
  r.score = t.get(0, n - 1);
  if (with_traceback) r.structure = traceback(s, n, p, [&t](int i, int j) { return t.get(i, j); });
  return r;
}

bool fits16(int n, const Params& p) { return packed::fits_plain16(n, p.weights); }

}  // namespace

bool uses_compact(int n, const Params& p) { return packed::uses_relative(n, p.weights); }

FoldResult fold_cpu(const std::uint8_t* s, int n, const Params& p, bool with_traceback, int threads) {
  if (n <= 0) return {};
  if (fits16(n, p)) return run<std::int16_t>(s, n, p, with_traceback, threads);
  if (uses_compact(n, p)) return fold_compact(s, n, p, with_traceback, threads);
  return run<std::int32_t>(s, n, p, with_traceback, threads);
}

}  // namespace screen::nussinov
