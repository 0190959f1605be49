// Nussinov CUDA kernels (see nussinov_launch.hpp for the table form and layout).
//
// Tiled engine, per diagonal d of tiles (tile (I, J), J = I + d), for every sequence of a group:
//   panel    tile (I, J) += max-plus product of row panel (I, I+1..J-1) and column panel (I+1..J-1, J);
//            register-tiled, shared-memory staged; the K range is split over several blocks when the
//            diagonal has too few tiles to fill the GPU (split-K), the partial maxima land in scratch;
//   reduce   max over the split-K partials (only when split into more than Tuning::fused_slices
//            slices; finalize maxes fewer as it loads them);
//   finalize one block per tile: the in-tile dependencies (m inside tile I's rows or tile J's columns)
//            and the pair term, in shared memory: 4 x 4 sub-tile anti-diagonal by sub-tile
//            anti-diagonal (finish_subtiles), or cell anti-diagonal by cell anti-diagonal for the
//            diagonal tiles (d = 0).
// Lookahead schedule (default): the panel of diagonal d skips its two edge K tiles (K = I+1 and
// K = J-1, which lie on diagonal d-1), so it depends only on diagonals <= d-2 and runs on a second
// stream beside finalize(d-1); finalize(d) adds the two edge products itself. Measured on the H100:
// n = 26,000 went from 0.209 s to 0.188 s (16-bit) and 0.334 s to 0.305 s (32-bit).
// Add-max: ptxas emits the same VIADDMNMX (DPX) for __viaddmax_*, for plain max(a + b, c) and for
// the __vimax3 pairing, so the three Tuning::op variants time the same (kept as a knob).
// Relative cells (REL, beyond the int16 score bound; packed_layout.hpp): tiles hold 16-bit offsets
// from a per-tile base (the finished tile's minimum). The panel keeps its partial maxima relative to
// base(I+1, J-1) and shifts each K tile's terms by its base sum (leaving out tiles far below), so it
// runs the 16-bit kernel; finalize works in 32-bit values and stores the new base and offsets.
// Small sequences: one block per sequence, the whole table in shared memory (smem_fold).
#include <cuda_runtime.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <thread>
#include <type_traits>
#include <vector>

#include "common/error.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "kernels/nussinov/nussinov_launch.hpp"
#include "kernels/nussinov/nussinov_traceback.hpp"

namespace screen::kernels::nussinov {
namespace {

using screen::nussinov::Params;
constexpr int T = kTile;
constexpr int kPanelThreads = 128;
constexpr int kFinalThreads = 256;
constexpr int kSmemThreads = 256;
constexpr int kFinalLd = T + 1;
// finalize's shared memory (ints): kCOff slack, C with one more row and column (C[a * kFinalLd - 1] is
// column -1 of row a, C[T * kFinalLd + b] row T: the neighbouring tiles' cells the pair term reads, so
// C(a + 1, b - 1) needs no case on the tile's edges) and two rows of zeros, DI, DJ (FinalTile: 16-bit
// for plain 16-bit tables, else ints), then the pair weights W (16-bit) and 16 bytes of slack. The slack
// keeps the finisher's unpredicated loads of idle steps inside the block's memory. The finisher reads
// C's rows up to T + 2 paired with minus infinity: rows T + 1 and T + 2 hold zeros (not stale memory,
// nor DI's 16-bit cells read as ints, whose sum with minus infinity could be positive). DI is 16-byte
// aligned (edge_products16).
// A batch runs its folds sorted by length; `order[k]` is the caller's index of position k. Puts a per-fold
// result of position k at the caller's index.
template <class T>
std::vector<T> in_caller_order(std::vector<T> by_position, const std::vector<int>& order) {
  std::vector<T> out(by_position.size());
  for (std::size_t k = 0; k < by_position.size(); ++k) out[static_cast<std::size_t>(order[k])] = std::move(by_position[k]);
  return out;
}

constexpr int kCOff = 9;
constexpr int kCRows = T + 3;  // rows 0 .. T of C, then the two rows of zeros
constexpr int kDIOff = kCOff + kCRows * kFinalLd;
static_assert(kDIOff % 4 == 0 && kCOff >= 8, "DI 16-byte aligned, C with 8 ints of slack before it");
// DI and DJ's cells: 16-bit where the tables' cells are plain 16-bit (every value fits), so that a
// finalize block needs less than a fifth of an SM's shared memory and sits beside four panel blocks.
template <typename Cell, bool REL>
using FinalTile = std::conditional_t<sizeof(Cell) == 2 && !REL, std::int16_t, int>;
template <typename Cell, bool REL>
constexpr std::size_t final_smem() {
  return kDIOff * sizeof(int) + 2u * T * kFinalLd * sizeof(FinalTile<Cell, REL>) + T * T * sizeof(std::int16_t) + 16u;
}
constexpr int kNegInt = -(1 << 29);  // minus infinity of the finisher's terms: two of them still add without overflow

Tuning g_tuning{};

struct SeqInfo {
  const std::size_t* tab_off;   // first cell of each sequence's tile-packed table
  const int* nt;                // tiles per side
  const std::size_t* code_off;  // first code of each sequence (padded with N to nt * T codes)
  const int* len;               // n
  std::int32_t* tbase;          // relative cells: every tile's base, sequence s's at tab_off[s] / T^2; else null
};

struct Diag {
  const int* prefix;  // prefix[s] = first block-tile id of active sequence s; prefix[cnt] = tiles
  int cnt;            // active sequences (those with nt > d, a prefix of the length-sorted group)
  int d;
  int koff, numK;     // the panel's K tiles: I + koff .. I + koff + numK - 1
};

namespace packed = screen::nussinov::packed;
static_assert(T * T == 4096, "tile bases are indexed by tab_off / 4096");

// Base of tile `tile` of sequence s (relative cells), 0 for plain cells.
template <bool REL>
__device__ __forceinline__ int tile_base(const std::int32_t* tb, std::size_t tile) {
  if constexpr (REL) return tb[tile];
  else return 0;
}

__device__ __forceinline__ void locate(const Diag& w, int g, int& s, int& I) {
  int lo = 0, hi = w.cnt - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if (w.prefix[mid] <= g)
      lo = mid;
    else
      hi = mid - 1;
  }
  s = lo;
  I = g - w.prefix[lo];
}

template <int OP>
__device__ __forceinline__ unsigned addmax16(unsigned a, unsigned b, unsigned c) {
  if constexpr (OP == 0) return __viaddmax_s16x2(a, b, c);
  else return __vmaxs2(__vadd2(a, b), c);
}
template <int OP>
__device__ __forceinline__ int addmax32(int a, int b, int c) {
  if constexpr (OP == 0) return __viaddmax_s32(a, b, c);
  else return max(a + b, c);
}

__device__ __forceinline__ unsigned dup16(unsigned h) { return (h & 0xffffu) | (h << 16); }

// Staging into the k-pair layout (panel16_kernel and edge_products16). A: 8 k of one row as stored (4
// k-pair words) into column `row` of k-pair rows 4 q .. 4 q + 3; `to` = that column's first word, rows
// `stride` words apart.
__device__ __forceinline__ void store_a_words(unsigned* to, int stride, const uint4& v) {
  to[0] = v.x;
  to[stride] = v.y;
  to[2 * stride] = v.z;
  to[3 * stride] = v.w;
}
// B: 8 columns of rows 2p (x) and 2p + 1 (y) as stored, into k-pair words (B(2p, c), B(2p + 1, c)), one
// byte permute each; lo holds columns 0 .. 3, hi columns 4 .. 7.
__device__ __forceinline__ void kpair_words(const uint4& x, const uint4& y, uint4& lo, uint4& hi) {
  lo = make_uint4(__byte_perm(x.x, y.x, 0x5410), __byte_perm(x.x, y.x, 0x7632), __byte_perm(x.y, y.y, 0x5410),
                  __byte_perm(x.y, y.y, 0x7632));
  hi = make_uint4(__byte_perm(x.z, y.z, 0x5410), __byte_perm(x.z, y.z, 0x7632), __byte_perm(x.w, y.w, 0x5410),
                  __byte_perm(x.w, y.w, 0x7632));
}

// One step's words of a panel thread's 4 x 8 register tile (both panels): A's words 4 rg .. 4 rg + 3
// of the step's row, B's words 4 cg .. 4 cg + 3 and 32 + 4 cg .. 32 + 4 cg + 3; three 16-byte loads.
template <class Word>
struct StepWords {
  Word a[4], b[8];
};
template <class Word>
__device__ __forceinline__ StepWords<Word> step_words(const Word* arow, const Word* brow, int rg, int cg) {
  using V = std::conditional_t<std::is_signed_v<Word>, int4, uint4>;
  const V a = *reinterpret_cast<const V*>(arow + 4 * rg);
  const V b = *reinterpret_cast<const V*>(brow + 4 * cg), c = *reinterpret_cast<const V*>(brow + 32 + 4 * cg);
  return {{a.x, a.y, a.z, a.w}, {b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w}};
}

// ---- panel product, 16-bit cells, two k to a register ----
// A register holds the values of two consecutive k (k-pair p: k = 2p, 2p + 1): A(row, 2p | 2p + 1) is
// one word of the tile's row as stored, B(2p | 2p + 1, column) is made of two rows' halves at staging
// (one byte permute per word), so every fused add-max updates one cell twice (even k in the low half,
// odd k in the high half) and staging needs no splats; the halves are merged once at the end. Before,
// A's values were splatted into both halves at staging (two integer instructions per value, on the
// pipe the add-max runs on) and the k loop read one A word per 2 updates.
// Staging: the next K tile's A and B land in shared memory as stored (cp.async) while this one's
// products run, and are staged from there into the k-pair layout between two barriers: no registers
// held across the products (76 against 100-112 with the tiles prefetched into registers and two
// k-pair buffers) and no wait on global loads. H100, 26,000 nt: panel launch 150 326 -> 305 us, integer
// pipe 83 -> 89% busy; the fold 0.133 -> 0.124 s.
// REL: relative cells (packed_layout.hpp): each K tile's terms shifted by its base sum less the
// tile's reference R, tiles far below R left out; the partial maxima are relative to R.
constexpr int kPairs = T / 2;  // k-pairs of a tile
// Shared-memory word of column c in a staged B k-pair row: thread wg reads columns 8 wg .. 8 wg + 7
// as words 4 wg .. 4 wg + 3 and 32 + 4 wg .. 32 + 4 wg + 3 (each 16-byte load of a warp contiguous).
__device__ __forceinline__ int b_slot(int c) { return (c & 4) ? 32 + 4 * (c >> 3) + (c & 3) : 4 * (c >> 3) + (c & 3); }

// 16-byte asynchronous copy global -> shared (cp.async, L2 only), visible after async_wait_all() and a barrier.
__device__ __forceinline__ void async_copy16(void* to, const void* from) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(to))),
               "l"(from));
}
__device__ __forceinline__ void async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

template <int OP, bool REL = false>
__global__ void __launch_bounds__(kPanelThreads, 6) panel16_kernel(const std::int16_t* __restrict__ tab, SeqInfo si,
                                                                   Diag w, int S, std::int16_t* __restrict__ scratch) {
  // (6 blocks an SM by registers and shared memory; Tuning::panel_blocks_per_sm pads them to 4.)
  __shared__ __align__(16) unsigned As[kPairs][T];  // [k-pair][row]
  __shared__ __align__(16) unsigned Bs[kPairs][T];  // [k-pair][b_slot(column)]
  // The next K tile's A and B as stored (rows of 8 16-byte chunks), landed by cp.async while this one's
  // products run; chunk q of row r at r * 8 + (q ^ (r & 7)), so that the staging reads of 8 rows' chunk q
  // fall on distinct banks.
  __shared__ __align__(16) uint4 LA[T * T / 8], LB[T * T / 8];
  const int g = blockIdx.x / S, split = blockIdx.x % S;
  int s, I;
  locate(w, g, s, I);
  const int J = I + w.d, nt = si.nt[s];
  const std::int16_t* base = tab + si.tab_off[s];
  const std::int32_t* tb = REL ? si.tbase + si.tab_off[s] / (T * T) : nullptr;
  const int R = tile_base<REL>(tb, tile_index(I + 1, J - 1, nt));
  const int chunk = (w.numK + S - 1) / S;
  const int kb = I + w.koff + split * chunk, ke = min(I + w.koff + w.numK, kb + chunk);
  const int tid = threadIdx.x, rg = tid >> 3, wg = tid & 7;
  unsigned acc[4][8];
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int c = 0; c < 8; ++c) acc[r][c] = 0u;

  // REL: the K tile's shift base(I, K) + base(K, J) - R; K tiles below kRelativeSkip are skipped
  // (block-uniform: every term is below the tile's cells).
  auto shift_of = [&](int K) { return REL ? tb[tile_index(I, K, nt)] + tb[tile_index(K, J, nt)] - R : 0; };
  auto next_k = [&](int K) {
    if constexpr (REL)
      while (K < ke && shift_of(K) < packed::kRelativeSkip) ++K;
    return K;
  };
  auto land = [&](int K) {
    const uint4* At = reinterpret_cast<const uint4*>(base + tile_index(I, K, nt) * T * T);
    const uint4* Bt = reinterpret_cast<const uint4*>(base + tile_index(K, J, nt) * T * T);
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      const int e = tid + l * kPanelThreads, r = e >> 3, q = e & 7;  // consecutive threads: one row's chunks
      async_copy16(&LA[r * 8 + (q ^ (r & 7))], At + e);
      async_copy16(&LB[r * 8 + (q ^ (r & 7))], Bt + e);
    }
  };
  // Staging: A, row u % 64, 8 k (4 k-pairs) from u / 64, as stored; B, k-pair u / 8, 8 columns from
  // 8 (u % 8), built from rows 2p and 2p + 1 (one byte permute a word), with the REL shift.
  auto stage = [&](unsigned shift) {
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      const int u = tid + l * kPanelThreads, row = u & (T - 1), q = u >> 6;
      store_a_words(&As[4 * q][row], T, LA[row * 8 + (q ^ (row & 7))]);
    }
#pragma unroll
    for (int l = 0; l < 2; ++l) {
      const int u = tid + l * kPanelThreads, p = u >> 3, j = u & 7;
      const uint4 x = LB[(2 * p) * 8 + (j ^ ((2 * p) & 7))], y = LB[(2 * p + 1) * 8 + (j ^ ((2 * p + 1) & 7))];
      uint4 lo, hi;
      kpair_words(x, y, lo, hi);
      if constexpr (REL) {
        lo = make_uint4(__vadd2(lo.x, shift), __vadd2(lo.y, shift), __vadd2(lo.z, shift), __vadd2(lo.w, shift));
        hi = make_uint4(__vadd2(hi.x, shift), __vadd2(hi.y, shift), __vadd2(hi.z, shift), __vadd2(hi.w, shift));
      }
      *reinterpret_cast<uint4*>(&Bs[p][b_slot(8 * j)]) = lo;
      *reinterpret_cast<uint4*>(&Bs[p][b_slot(8 * j + 4)]) = hi;
    }
  };
  auto products = [&]() {
    if constexpr (OP == 2) {
#pragma unroll 2
      for (int p = 0; p < kPairs; p += 2) {
        const StepWords<unsigned> s0 = step_words(As[p], Bs[p], rg, wg), s1 = step_words(As[p + 1], Bs[p + 1], rg, wg);
#pragma unroll
        for (int r = 0; r < 4; ++r)
#pragma unroll
          for (int c = 0; c < 8; ++c)
            acc[r][c] = __vimax3_s16x2(acc[r][c], __vadd2(s0.a[r], s0.b[c]), __vadd2(s1.a[r], s1.b[c]));
      }
    } else {
#pragma unroll 4
      for (int p = 0; p < kPairs; ++p) {
        const StepWords<unsigned> s0 = step_words(As[p], Bs[p], rg, wg);
#pragma unroll
        for (int r = 0; r < 4; ++r)
#pragma unroll
          for (int c = 0; c < 8; ++c) acc[r][c] = addmax16<OP>(s0.a[r], s0.b[c], acc[r][c]);
      }
    }
  };
  int K = next_k(kb);
  if (K < ke) land(K);
  while (K < ke) {
    const unsigned shift = REL ? dup16(static_cast<unsigned>(shift_of(K))) : 0u;
    async_wait_all();
    __syncthreads();  // K's tiles landed; every thread is past the products of the tile before
    stage(shift);
    __syncthreads();  // As, Bs ready; the landing buffers free
    const int next = next_k(K + 1);
    if (next < ke) land(next);
    products();
    K = next;
  }
  // Each cell's two halves (even and odd k) merged; columns 8 wg .. 8 wg + 7 of rows 4 rg .. 4 rg + 3.
  std::int16_t* out = scratch + (static_cast<std::size_t>(g) * S + split) * T * T;
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    unsigned v[4];
#pragma unroll
    for (int e = 0; e < 4; ++e)
      v[e] = __vmaxs2(__byte_perm(acc[r][2 * e], acc[r][2 * e + 1], 0x5410),
                      __byte_perm(acc[r][2 * e], acc[r][2 * e + 1], 0x7632));
    reinterpret_cast<uint4*>(out + (rg * 4 + r) * T)[wg] = make_uint4(v[0], v[1], v[2], v[3]);
  }
}

// ---- panel product, 32-bit cells ----
template <int OP>
__global__ void __launch_bounds__(kPanelThreads) panel32_kernel(const std::int32_t* __restrict__ tab, SeqInfo si,
                                                                Diag w, int S, std::int32_t* __restrict__ scratch) {
  __shared__ __align__(16) int As[T][T];  // [k][row]
  __shared__ __align__(16) int Bs[T][T];  // [k][column]
  const int g = blockIdx.x / S, split = blockIdx.x % S;
  int s, I;
  locate(w, g, s, I);
  const int J = I + w.d, nt = si.nt[s];
  const std::int32_t* base = tab + si.tab_off[s];
  const int chunk = (w.numK + S - 1) / S;
  const int kb = I + w.koff + split * chunk, ke = min(I + w.koff + w.numK, kb + chunk);
  const int tid = threadIdx.x, rg = tid >> 3, cg = tid & 7;
  int acc[4][8];
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int c = 0; c < 8; ++c) acc[r][c] = 0;

  const int la = tid & (T - 1), lpart = tid >> 6;
  for (int K = kb; K < ke; ++K) {
    const int4* At = reinterpret_cast<const int4*>(base + tile_index(I, K, nt) * T * T);
    const int4* Bt = reinterpret_cast<const int4*>(base + tile_index(K, J, nt) * T * T);
    int4 av[8], bv[8];
#pragma unroll
    for (int l = 0; l < 8; ++l) {
      av[l] = __ldg(At + la * (T / 4) + (l * 2 + lpart));
      bv[l] = __ldg(Bt + l * kPanelThreads + tid);
    }
    __syncthreads();
#pragma unroll
    for (int l = 0; l < 8; ++l) {
      const int kq = (l * 2 + lpart) * 4;
      As[kq][la] = av[l].x;
      As[kq + 1][la] = av[l].y;
      As[kq + 2][la] = av[l].z;
      As[kq + 3][la] = av[l].w;
      reinterpret_cast<int4*>(&Bs[0][0])[l * kPanelThreads + tid] = bv[l];
    }
    __syncthreads();
    if constexpr (OP == 2) {
#pragma unroll 2
      for (int k = 0; k < T; k += 2) {
        const StepWords<int> s0 = step_words(As[k], Bs[k], rg, cg), s1 = step_words(As[k + 1], Bs[k + 1], rg, cg);
#pragma unroll
        for (int r = 0; r < 4; ++r)
#pragma unroll
          for (int c = 0; c < 8; ++c) acc[r][c] = __vimax3_s32(acc[r][c], s0.a[r] + s0.b[c], s1.a[r] + s1.b[c]);
      }
    } else {
#pragma unroll 4
      for (int k = 0; k < T; ++k) {
        const StepWords<int> s0 = step_words(As[k], Bs[k], rg, cg);
#pragma unroll
        for (int r = 0; r < 4; ++r)
#pragma unroll
          for (int c = 0; c < 8; ++c) acc[r][c] = addmax32<OP>(s0.a[r], s0.b[c], acc[r][c]);
      }
    }
  }
  std::int32_t* out = scratch + (static_cast<std::size_t>(g) * S + split) * T * T;
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    int4* row = reinterpret_cast<int4*>(out + (rg * 4 + r) * T);
    row[cg] = make_int4(acc[r][0], acc[r][1], acc[r][2], acc[r][3]);
    row[8 + cg] = make_int4(acc[r][4], acc[r][5], acc[r][6], acc[r][7]);
  }
}

// ---- max over the split-K partials, into slice 0 of each tile ----
template <int CB>
__global__ void reduce_kernel(unsigned* scratch, long long words_total, int S) {
  constexpr int W = T * T * CB / 4;  // 32-bit words per tile
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < words_total;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long g = e / W, wi = e % W;
    unsigned* p = scratch + g * S * W + wi;
    unsigned v = p[0];
    for (int k = 1; k < S; ++k) {
      if constexpr (CB == 2) v = __vmaxs2(v, p[static_cast<long long>(k) * W]);
      else v = static_cast<unsigned>(max(static_cast<int>(v), static_cast<int>(p[static_cast<long long>(k) * W])));
    }
    p[0] = v;
  }
}

template <typename Cell, bool REL>
__device__ __forceinline__ int load_cell(const Cell* base, const std::int32_t* tb, int nt, int i, int j) {
  return tile_base<REL>(tb, tile_index(i / T, j / T, nt)) + base[tile_index(i / T, j / T, nt) * T * T + (i % T) * T + (j % T)];
}

// ---- in-tile dependencies and the pair term, one block per tile ----
// A whole tile from global memory into shared ints (row stride kFinalLd), plus add: 16-byte loads, all in
// flight before the first store. slices > 1: the max over that many split-K slices of the panel's partial
// maxima (`stride` cells apart), the reduce kernel's work folded into this load (Tuning::fused_slices).
// kLowerNeg: the strictly lower triangle (row > column) as minus infinity (DJ, for the finisher).
// Minus infinity of a finalize tile buffer: kNegInt in ints; in 16-bit buffers (plain 16-bit tables, whose
// values are at most 32,767) the least 16-bit value, so a term pairing it with any C value stays negative.
template <typename D>
__device__ __forceinline__ constexpr int tile_neg() {
  return sizeof(D) == 2 ? -32768 : kNegInt;
}

template <typename Cell, bool kLowerNeg = false, typename D = int>
__device__ __forceinline__ void load_tile(D* dst, const Cell* src, int add = 0, int slices = 1, std::size_t stride = 0) {
  constexpr int per = 16 / static_cast<int>(sizeof(Cell));
  constexpr int rounds = T * T / per / kFinalThreads;
  const uint4* s4 = reinterpret_cast<const uint4*>(src);
  uint4 v[rounds];
#pragma unroll
  for (int k = 0; k < rounds; ++k) v[k] = __ldg(s4 + k * kFinalThreads + threadIdx.x);
  for (int j = 1; j < slices; ++j) {
    const uint4* o4 = reinterpret_cast<const uint4*>(src + j * stride);
#pragma unroll
    for (int k = 0; k < rounds; ++k) {
      const uint4 o = __ldg(o4 + k * kFinalThreads + threadIdx.x);
      if constexpr (sizeof(Cell) == 2) {
        v[k] = make_uint4(__vmaxs2(v[k].x, o.x), __vmaxs2(v[k].y, o.y), __vmaxs2(v[k].z, o.z), __vmaxs2(v[k].w, o.w));
      } else {
        v[k] = make_uint4(max(static_cast<int>(v[k].x), static_cast<int>(o.x)), max(static_cast<int>(v[k].y), static_cast<int>(o.y)),
                          max(static_cast<int>(v[k].z), static_cast<int>(o.z)), max(static_cast<int>(v[k].w), static_cast<int>(o.w)));
      }
    }
  }
#pragma unroll
  for (int k = 0; k < rounds; ++k) {
    const int e = (k * kFinalThreads + static_cast<int>(threadIdx.x)) * per;
    Cell vals[per];
    memcpy(vals, &v[k], 16);
#pragma unroll
    for (int x = 0; x < per; ++x) {
      const int row = e / T, col = e % T + x;
      dst[row * kFinalLd + col] = static_cast<D>((kLowerNeg && row > col) ? tile_neg<D>() : add + vals[x]);
    }
  }
}

// v with the pair term of tile cell (a, b): M(i + 1, j - 1) + w when (i, j - 1) may pair (weight W). The
// inner cell is C(a + 1, b - 1): on the tile's edges, row T and column -1 of C hold the tiles below (I+1, J),
// left (I, J-1) and below-left (I+1, J-1).
__device__ __forceinline__ int with_pair_term(int v, int a, int b, const int* C, const std::int16_t* W) {
  const int wgt = W[a * T + b];
  return wgt > 0 ? max(v, C[(a + 1) * kFinalLd + b - 1] + wgt) : v;
}

// The in-tile dependencies and the pair term of an off-diagonal tile (d >= 1), in kSub x kSub sub-tiles
// (e = kSub below). Cell (a, b) of tile (I, J) takes max over m > a in tile I's rows of DI(a, m) + C(m, b)
// and over m < b in tile J's columns of C(a, m) + DJ(m, b): it depends on the cells below it in its
// column and left of it in its row. So sub-tile (A, B) (rows e A.., columns e B..) depends on the
// sub-tiles below it in column B and left of it in row A, and the sub-tiles are final stage by stage,
// s = B - A + T / e - 1 (0: the bottom-left one, kStages - 1: the top-right one). At stage s, the e lanes
// of a finisher finish one stage-s sub-tile: its own terms (m inside it) and the pair term, cell
// anti-diagonal by cell anti-diagonal (2 e - 1 warp steps); then every sub-tile of a later stage adds the
// two e x e x e max-plus products that have just become final: DI rows x the final sub-tile below it in
// its column, and the final sub-tile left of it in its row x DJ columns, into the cells its threads hold
// in registers. kStages block barriers and short warp steps instead of the cell wavefront's 127 barriers
// over up to 126 terms (the n = 10,000 fold spent 21 of its 29 ms in that wavefront). e = 4 (31 stages of
// 7 steps of 6 terms) against e = 8 (15 of 15 steps of 14 terms): finalize 84 -> 76 us a block at
// n = 26,000, the fold at 10,000 nt 0.014 -> 0.013 s (H100).
constexpr int kSub = 4;               // sub-tile edge
constexpr int kSubs = T / kSub;       // sub-tiles per tile side
constexpr int kStages = 2 * kSubs - 1;
constexpr int kSubThreads = kFinalThreads / (kSubs * kSubs);  // threads of a sub-tile (its products)
constexpr int kSubRows = kSub / kSubThreads;                  // its rows per thread
static_assert(kSubThreads * kSubs * kSubs == kFinalThreads && kSubRows * kSubThreads == kSub, "sub-tile threads");

template <typename D>
__device__ __forceinline__ void finish_subtiles(int* C, const D* DI, const D* DJ, const std::int16_t* W) {
  constexpr int ld = kFinalLd;
  const int tid = threadIdx.x, sub = tid / kSubThreads, part = tid % kSubThreads;
  // Consecutive threads hold the sub-tiles of one column: their products with the final sub-tile below
  // read the same C rows (broadcasts).
  const int A = sub % kSubs, B = sub / kSubs, my_stage = B - A + kSubs - 1;
  const int r0 = A * kSub + part * kSubRows, c0 = B * kSub;
  int acc[kSubRows][kSub];
#pragma unroll
  for (int r = 0; r < kSubRows; ++r)
#pragma unroll
    for (int c = 0; c < kSub; ++c) acc[r][c] = C[(r0 + r) * ld + c0 + c];
  for (int s = 0; s < kStages; ++s) {
    if (my_stage == s) {
#pragma unroll
      for (int r = 0; r < kSubRows; ++r)
#pragma unroll
        for (int c = 0; c < kSub; ++c) C[(r0 + r) * ld + c0 + c] = acc[r][c];
    }
    __syncthreads();
    if (tid < kSubs * kSub) {
      // Finisher k (kSub lanes) takes the k-th sub-tile of stage s; lane l its local row l, column
      // cb = l + t - (kSub - 1) at step t. Every step runs the same loads and fused add-max on every lane, with
      // no branch: the terms that are not this cell's are harmless (max is idempotent and every term
      // is a lower bound of the cell), idle lanes (and idle finishers, mapped to sub-tile (0, 0)) only
      // skip the store. Terms of cell (a, b), m over the sub-tile:
      //   below, m = a + o (o = 1 .. kSub - 1): DI(a, m) + C(m, b); final for m in the sub-tile (lane l + o
      //     wrote it o steps ago) or the one below (an earlier stage); DI(a, m) minus infinity past the tile;
      //   left, m = kSub fb + o (o = 0 .. kSub - 2): C(a, m) + DJ(m, b); this lane's own cells, final for m < b;
      //     for m >= b the term is C(a, m) + DJ(m, b) with DJ(b, b) = 0 (the cell's own value) or DJ's
      //     lower triangle, loaded as minus infinity.
      // Each step is then 3 (kSub - 1) + 3 loads and 2 (kSub - 1) fused add-max in two chains; the
      // predicated, branching form spent about 100 instructions and 570 cycles a step (8 x 8 sub-tiles,
      // Nsight Compute, n = 26,000). Idle steps and idle finishers load cells that another finisher may be
      // writing in the same stage; those values are discarded (compute-sanitizer's racecheck lists them).
      const int k = tid / kSub, l = tid % kSub;
      int fa = (s < kSubs - 1 ? kSubs - 1 - s : 0) + k, fb = fa + s - (kSubs - 1);
      const bool on = fa < kSubs && fb >= 0 && fb < kSubs;
      if (!on) fa = fb = 0;
      const int a = fa * kSub + l;
      int* const pc = C + a * ld + fb * kSub + l - (kSub - 1);               // + t: cell (a, kSub fb + cb)
      const int* const prow = C + a * ld + fb * kSub;                         // + o: cell (a, kSub fb + o)
      const D* const pdj = DJ + fb * kSub * ld + fb * kSub + l - (kSub - 1);  // + o ld + t: DJ(kSub fb + o, kSub fb + cb)
      const std::int16_t* const pw = W + a * T + fb * kSub + l - (kSub - 1);  // + t: the pair weight of the cell
      int di[kSub];
#pragma unroll
      for (int o = 1; o < kSub; ++o) di[o] = a + o < T ? DI[a * ld + a + o] : kNegInt;
#pragma unroll
      for (int t = 0; t < 2 * kSub - 1; ++t) {
        const int cb = l + t - (kSub - 1);
        int v = pc[t], u = kNegInt;
#pragma unroll
        for (int o = 1; o < kSub; ++o) v = __viaddmax_s32(di[o], pc[t + o * ld], v);
#pragma unroll
        for (int o = 0; o < kSub - 1; ++o) u = __viaddmax_s32(prow[o], pdj[t + o * ld], u);
        v = max(v, u);
        const int wgt = pw[t];
        if (wgt > 0) v = max(v, pc[t + ld - 1] + wgt);  // pair term: C(a + 1, b - 1) + w
        if (on && cb >= 0 && cb < kSub) pc[t] = v;
        __syncwarp();
      }
    }
    __syncthreads();
    if (my_stage > s) {
      // The sub-tile of stage s below this one in its column, and the one left of it in its row.
      const int below = B + kSubs - 1 - s, left = A + s - (kSubs - 1);
      if (below < kSubs) {
#pragma unroll
        for (int k = 0; k < kSub; ++k) {
          const int m = below * kSub + k;
          int bv[kSub];
#pragma unroll
          for (int c = 0; c < kSub; ++c) bv[c] = C[m * ld + c0 + c];
#pragma unroll
          for (int r = 0; r < kSubRows; ++r) {
            const int av = DI[(r0 + r) * ld + m];
#pragma unroll
            for (int c = 0; c < kSub; ++c) acc[r][c] = max(acc[r][c], av + bv[c]);
          }
        }
      }
      if (left >= 0) {
#pragma unroll
        for (int k = 0; k < kSub; ++k) {
          const int m = left * kSub + k;
          int bv[kSub];
#pragma unroll
          for (int c = 0; c < kSub; ++c) bv[c] = DJ[m * ld + c0 + c];
#pragma unroll
          for (int r = 0; r < kSubRows; ++r) {
            const int av = C[(r0 + r) * ld + m];
#pragma unroll
            for (int c = 0; c < kSub; ++c) acc[r][c] = max(acc[r][c], av + bv[c]);
          }
        }
      }
    }
    // No barrier here: the next stage's stores write only its own sub-tiles, which no product of
    // this stage reads (they read stage-s sub-tiles, DI and DJ).
  }
}

// The lookahead schedule's two edge products of a finalize tile (K = I + 1 and K = J - 1; one when
// d = 2), for plain 16-bit cells: two k to a register as in panel16 (A's words as stored, B's built from
// two rows), 16 fused add-max per thread and k-pair instead of 16 per k in 32-bit; into C (max).
// As, Bs: [k-pair][row] and [k-pair][column] words, in the DI and DJ buffers.
__device__ __forceinline__ void edge_products16(int* C, unsigned* As, unsigned* Bs, const std::int16_t* base, int I,
                                                int J, int nt, int d) {
  const int tid = threadIdx.x, r0 = (tid >> 4) * 4, c0 = (tid & 15) * 4;
  unsigned acc[4][4];
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int c = 0; c < 4; ++c) acc[r][c] = 0u;
  for (int e = 0; e < (d == 2 ? 1 : 2); ++e) {
    const int K = e == 0 ? I + 1 : J - 1;
    const uint4* At = reinterpret_cast<const uint4*>(base + tile_index(I, K, nt) * T * T);
    const uint4* Bt = reinterpret_cast<const uint4*>(base + tile_index(K, J, nt) * T * T);
    uint4 ra[2], rb[2];
#pragma unroll
    for (int l = 0; l < 2; ++l) ra[l] = __ldg(At + ((tid + l * kFinalThreads) & (T - 1)) * (T / 8) + ((tid + l * kFinalThreads) >> 6));
    const int p = tid >> 3, j = tid & 7;  // B: k-pair p, columns 8 j .. 8 j + 7
    rb[0] = __ldg(Bt + (2 * p) * (T / 8) + j);
    rb[1] = __ldg(Bt + (2 * p + 1) * (T / 8) + j);
    __syncthreads();  // As / Bs free
#pragma unroll
    for (int l = 0; l < 2; ++l) {
      const int u = tid + l * kFinalThreads, row = u & (T - 1), q = u >> 6;
      store_a_words(As + 4 * q * T + row, T, ra[l]);
    }
    {
      uint4* to = reinterpret_cast<uint4*>(Bs + p * T + 8 * j);
      kpair_words(rb[0], rb[1], to[0], to[1]);
    }
    __syncthreads();
#pragma unroll 4
    for (int q = 0; q < kPairs; ++q) {
      const uint4 a4 = *reinterpret_cast<const uint4*>(As + q * T + r0);
      const uint4 b4 = *reinterpret_cast<const uint4*>(Bs + q * T + c0);
      const unsigned ar[4] = {a4.x, a4.y, a4.z, a4.w}, br[4] = {b4.x, b4.y, b4.z, b4.w};
#pragma unroll
      for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) acc[r][c] = __viaddmax_s16x2(ar[r], br[c], acc[r][c]);
    }
  }
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const unsigned v = acc[r][c];
      const int even = static_cast<std::int16_t>(v & 0xffffu), odd = static_cast<std::int16_t>(v >> 16);
      int& x = C[(r0 + r) * kFinalLd + c0 + c];
      x = max(x, max(even, odd));
    }
  __syncthreads();
}

// One block per tile of diagonal d. P (may be null): the panel's max over the middle K tiles.
// edges: also the max-plus products over K = I+1 and K = J-1 (the lookahead schedule leaves those
// two to this kernel, so the panel of diagonal d can run while diagonal d-1 is being finalized).
// REL: relative cells; the tile's cells go to shared memory as values (base + offset) and come back
// as offsets from the finished tile's minimum, which becomes its base.
template <typename Cell, bool REL = false>
__global__ void __launch_bounds__(kFinalThreads) finalize_kernel(Cell* tab, SeqInfo si, const std::uint8_t* codes,
                                                                 Diag w, int S, const Cell* P_all, int slices,
                                                                 bool edges, Params p, PairTable pt) {
  extern __shared__ __align__(16) int fsm[];
  using D = FinalTile<Cell, REL>;
  int* C = fsm + kCOff;  // final_smem: rows 0 .. T, columns -1 .. T-1, then two rows of zeros
  D* DI = reinterpret_cast<D*>(fsm + kDIOff);
  D* DJ = DI + T * kFinalLd;
  std::int16_t* W = reinterpret_cast<std::int16_t*>(DJ + T * kFinalLd);  // W[a][b]: weight of pairing (i, j-1)
  const int g = blockIdx.x, d = w.d;
  int s, I;
  locate(w, g, s, I);
  const int J = I + d, nt = si.nt[s];
  Cell* base = tab + si.tab_off[s];
  std::int32_t* tb = REL ? si.tbase + si.tab_off[s] / (T * T) : nullptr;
  const std::uint8_t* seq = codes + si.code_off[s];
  const int tid = threadIdx.x;
  for (int e = tid; e < 2 * kFinalLd; e += kFinalThreads) C[(T + 1) * kFinalLd + e] = 0;  // rows T + 1, T + 2
  const Cell* P = P_all ? P_all + static_cast<std::size_t>(g) * S * T * T : nullptr;
  if (P) {  // a panel ran: d >= 2, and REL partials are relative to base(I+1, J-1)
    load_tile(C, P, tile_base<REL>(tb, tile_index(I + 1, J - 1, nt)), slices, static_cast<std::size_t>(T) * T);
  } else {
    for (int e = tid; e < T * T; e += kFinalThreads) C[(e / T) * kFinalLd + (e % T)] = 0;
  }
  // The pair weights of the tile's cells, ahead of the wavefront (keeps global reads off its path), from
  // the weight table and the tile's codes in shared memory: indexing the kernel parameter by code pairs
  // serialized the lanes' constant loads (10% of a finalize block at n = 26,000).
  {
    __shared__ std::int16_t wtab[seq::kAlphabetSize * seq::kAlphabetSize];
    __shared__ std::uint8_t row_codes[T], col_codes[T];  // codes of i = I T + a and of j - 1 = J T + b - 1
    if (tid < seq::kAlphabetSize * seq::kAlphabetSize) wtab[tid] = pt.w[tid];
    if (tid < T) row_codes[tid] = seq[I * T + tid];
    else if (tid < 2 * T) col_codes[tid - T] = seq[max(J * T + (tid - T) - 1, 0)];  // j - 1 < 0: no pair (j - i < 2)
    __syncthreads();
    for (int e = tid; e < T * T; e += kFinalThreads) {
      const int a = e / T, b = e % T, i = I * T + a, j = J * T + b;
      const bool pairs = j - i >= 2 && screen::nussinov::span_allows_pair(p, i, j - 1);
      W[e] = pairs ? wtab[row_codes[a] * seq::kAlphabetSize + col_codes[b]] : std::int16_t{0};
    }
  }
  if (d >= 1 && tid < T) {
    const std::size_t tn = tile_index(I + 1, J, nt), tw = tile_index(I, J - 1, nt);
    C[T * kFinalLd + tid] = tile_base<REL>(tb, tn) + base[tn * T * T + tid];                 // M(i0 + T, j0 + b): row 0 of (I+1, J)
    C[tid * kFinalLd - 1] = tile_base<REL>(tb, tw) + base[tw * T * T + tid * T + (T - 1)];  // M(i0 + a, j0 - 1): column T-1 of (I, J-1)
    if (tid == 0) {
      const std::size_t tc = d >= 2 ? tile_index(I + 1, J - 1, nt) : 0;
      C[T * kFinalLd - 1] = d >= 2 ? tile_base<REL>(tb, tc) + static_cast<int>(base[tc * T * T + (T - 1)]) : 0;
    }
  }
  if (edges && d >= 2) {
    if constexpr (sizeof(Cell) == 2 && !REL) {
      edge_products16(C, reinterpret_cast<unsigned*>(DI), reinterpret_cast<unsigned*>(DJ), base, I, J, nt, d);
    } else {
      int acc[4][4];
#pragma unroll
      for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) acc[r][c] = 0;
      const int r0 = (tid >> 4) * 4, c0 = (tid & 15) * 4;
      for (int e = 0; e < (d == 2 ? 1 : 2); ++e) {
        const int K = e == 0 ? I + 1 : J - 1;
        __syncthreads();  // DI / DJ free
        const std::size_t ta = tile_index(I, K, nt), tbb = tile_index(K, J, nt);
        load_tile(DI, base + ta * T * T, tile_base<REL>(tb, ta));
        load_tile(DJ, base + tbb * T * T, tile_base<REL>(tb, tbb));
        __syncthreads();
#pragma unroll 4
        for (int k = 0; k < T; ++k) {
          int av[4], bv[4];
#pragma unroll
          for (int r = 0; r < 4; ++r) av[r] = DI[(r0 + r) * kFinalLd + k];
#pragma unroll
          for (int c = 0; c < 4; ++c) bv[c] = DJ[k * kFinalLd + c0 + c];
#pragma unroll
          for (int r = 0; r < 4; ++r)
#pragma unroll
            for (int c = 0; c < 4; ++c) acc[r][c] = max(acc[r][c], av[r] + bv[c]);
        }
      }
#pragma unroll
      for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          int& x = C[(r0 + r) * kFinalLd + c0 + c];
          x = max(x, acc[r][c]);
        }
      __syncthreads();
    }
  }
  if (d >= 1) {
    const std::size_t ti = tile_index(I, I, nt), tj = tile_index(J, J, nt);
    load_tile(DI, base + ti * T * T, tile_base<REL>(tb, ti));
    load_tile<Cell, true>(DJ, base + tj * T * T, tile_base<REL>(tb, tj));  // lower triangle: minus infinity (finish_subtiles)
  }
  __syncthreads();
  if (d >= 1) {
    finish_subtiles(C, DI, DJ, W);
  } else {
    // A diagonal tile: its upper triangle cell anti-diagonal by cell anti-diagonal (one launch of the
    // fold's; the cells of one anti-diagonal are independent and each has the same number of terms,
    // spread over lpc lanes, as many as the block allows).
    for (int delta = 0; delta < T; ++delta) {
      const int count = T - delta;
      int lpc = 4;
      while (lpc < 32 && count * lpc * 2 <= kFinalThreads) lpc *= 2;
      const int slot = tid / lpc, q = tid & (lpc - 1);
      const int a = slot, b = a + delta;
      const bool active = slot < count;
      int v = 0;
      if (active) {
#pragma unroll 4
        for (int m = a + 1 + q; m < b; m += lpc) v = max(v, C[a * kFinalLd + m] + C[m * kFinalLd + b]);
      }
      for (int o = 1; o < lpc; o <<= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
      if (active && q == 0) {
        v = max(v, C[a * kFinalLd + b]);
        C[a * kFinalLd + b] = with_pair_term(v, a, b, C, W);
      }
      __syncthreads();
    }
  }
  Cell* own = base + tile_index(I, J, nt) * T * T;
  int lo = 0;  // REL: the tile's minimum, its base
  if constexpr (REL) {
    __syncthreads();  // C final, DI free for the reduction
    int m = C[(tid / T) * kFinalLd + (tid % T)];
    for (int e = tid + kFinalThreads; e < T * T; e += kFinalThreads) m = min(m, C[(e / T) * kFinalLd + (e % T)]);
    for (int o = 16; o > 0; o >>= 1) m = min(m, __shfl_xor_sync(0xffffffffu, m, o));
    if ((tid & 31) == 0) DI[tid >> 5] = m;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kFinalThreads / 32; ++k) m = min(m, DI[k]);
    lo = m;
    if (tid == 0) tb[tile_index(I, J, nt)] = lo;
  }
  for (int e = tid; e < T * T; e += kFinalThreads) own[e] = static_cast<Cell>(C[(e / T) * kFinalLd + (e % T)] - lo);
}

template <typename Cell, bool REL>
__global__ void scores_kernel(const Cell* tab, SeqInfo si, int count, long long* scores) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < count)
    scores[s] = load_cell<Cell, REL>(tab + si.tab_off[s], REL ? si.tbase + si.tab_off[s] / (T * T) : nullptr, si.nt[s],
                                     0, si.len[s]);
}

// ---- small sequences: one block per sequence, table in shared memory ----
__host__ __device__ inline int smem_ld(int n) {
  const int D = n + 1;
  return D + (D & 1);  // even row stride: lanes on neighbouring cells then hit different banks
}

template <typename Cell>
__global__ void __launch_bounds__(kSmemThreads) smem_kernel(const std::uint8_t* codes, const std::size_t* code_off,
                                                            const int* lens, Params p, PairTable pt,
                                                            long long* scores, Cell* out, const std::size_t* out_off) {
  extern __shared__ __align__(16) unsigned char sraw[];
  Cell* M = reinterpret_cast<Cell*>(sraw);
  const int s = blockIdx.x, n = lens[s], LD = smem_ld(n), D = n + 1;
  const std::uint8_t* seq = codes + code_off[s];
  for (int e = threadIdx.x; e < D * LD; e += kSmemThreads) M[e] = 0;
  __syncthreads();
  for (int len = 2; len <= n; ++len) {
    for (int i = threadIdx.x; i + len <= n; i += kSmemThreads) {
      const int j = i + len;
      int v = 0;
      const Cell* row = M + i * LD;
      for (int m = i + 1; m < j; ++m) v = max(v, static_cast<int>(row[m]) + static_cast<int>(M[m * LD + j]));
      const int wgt = screen::nussinov::pair_score(p, pt, seq, i, j - 1);
      if (wgt > 0) v = max(v, static_cast<int>(M[(i + 1) * LD + j - 1]) + wgt);
      M[i * LD + j] = static_cast<Cell>(v);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) scores[s] = M[n];
  if (out) {
    const int nt = (D + T - 1) / T, side = nt * T;
    Cell* o = out + out_off[s];
    for (long long e = threadIdx.x; e < static_cast<long long>(side) * side; e += kSmemThreads) {
      const int i = static_cast<int>(e / side), j = static_cast<int>(e % side);
      if (i / T > j / T) continue;
      o[tile_index(i / T, j / T, nt) * T * T + (i % T) * T + (j % T)] =
          (i <= j && j <= n) ? M[i * LD + j] : Cell(0);
    }
  }
}

// ---- host side ----
int device_sms(int device) {
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

// Dynamic shared memory that pads a panel block so that at most Tuning::panel_blocks_per_sm of them
// share an SM (0: no padding), leaving room for finalize blocks beside them. Applied to the
// diagonals whose panel is small (Tuning::panel_cap_products): there the fold waits on the chain of
// finalize launches, and a finalize block that finds its SM full of panel blocks waits for them.
// final_bytes: a finalize block's shared memory (dynamic and static). Where cap panel blocks and one
// finalize block fit in an SM while cap + 1 panel blocks do not, the padding leaves exactly that room, so
// a finalize block starts beside the panels instead of waiting for one of them to end.
std::size_t panel_padding(int cell_bytes, int device, std::size_t final_bytes) {
  const int cap = g_tuning.panel_blocks_per_sm;
  if (cap <= 0) return 0;
  int per_sm_smem = 0, reserved = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&per_sm_smem, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device));
  cudaFuncAttributes fa{};
  if (cell_bytes == 2) CUDA_CHECK(cudaFuncGetAttributes(&fa, panel16_kernel<0>));
  else CUDA_CHECK(cudaFuncGetAttributes(&fa, panel32_kernel<0>));
  constexpr long long kGrain = 128;  // shared memory is given to blocks in units of this many bytes
  const auto up = [](long long b) { return (b + kGrain - 1) / kGrain * kGrain; };
  const long long finalize_block = up(static_cast<long long>(final_bytes) + reserved);
  long long share = (per_sm_smem - finalize_block) / cap / kGrain * kGrain;  // a panel block's, beside a finalize
  if (share * (cap + 1) <= per_sm_smem) share = per_sm_smem / cap;         // that would admit cap + 1 panels
  const long long per_block = share - reserved - static_cast<long long>(fa.sharedSizeBytes);
  // Past the largest dynamic size a block may ask for, cap does not apply (it is then 1 or 2 anyway).
  const long long most = static_cast<long long>(fa.maxDynamicSharedSizeBytes);
  return per_block > 0 ? static_cast<std::size_t>(std::min(per_block, std::max<long long>(most, 0))) : 0;
}

template <int OP, bool REL>
void allow_panel_padding(std::size_t bytes) {
  if (bytes > 0) {
    CUDA_CHECK(cudaFuncSetAttribute(panel16_kernel<OP, REL>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(bytes)));
    // The whole of an SM's unified memory as shared memory: the padding's arithmetic counts on it (a
    // smaller carveout chosen for the panels alone would leave no room for the finalize block).
    CUDA_CHECK(cudaFuncSetAttribute(panel16_kernel<OP, REL>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    cudaSharedmemCarveoutMaxShared));
  }
}

int device_of_current() {
  int d = 0;
  CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

int panel_capacity(int cell_bytes, int device) {
  int per_sm = 0;
  if (cell_bytes == 2)
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, panel16_kernel<0>, kPanelThreads, 0));
  else
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, panel32_kernel<0>, kPanelThreads, 0));
  return std::max(1, per_sm) * device_sms(device);
}

struct Plan {
  std::vector<int> order;             // group index by position (sorted by nt, descending)
  std::vector<int> nt, len;           // per position
  std::vector<std::size_t> tab_off, code_off;
  std::size_t tab_cells = 0, code_bytes = 0;
  int max_nt = 0;
  std::vector<int> prefix_all;        // per diagonal: cnt + 1 prefix entries
  std::vector<std::size_t> prefix_at;
  std::vector<int> cnt, tiles, splits;  // splits = 0: no panel on that diagonal
  bool lookahead = true;
  std::size_t scratch_cells = 0;        // per scratch buffer (two when lookahead)
};

// The panel's K tiles of diagonal d: I+1 .. J-1, or I+2 .. J-2 with the lookahead schedule (the two
// edge tiles, on diagonal d-1, are then done by the finalize kernel).
int panel_koff(const Plan& pl) { return pl.lookahead ? 2 : 1; }
int panel_numk(const Plan& pl, int d) { return std::max(0, pl.lookahead ? d - 3 : d - 1); }

Plan make_plan(const std::vector<int>& lengths, int cell_bytes, int device) {
  Plan pl;
  const int ns = static_cast<int>(lengths.size());
  pl.order.resize(static_cast<std::size_t>(ns));
  std::iota(pl.order.begin(), pl.order.end(), 0);
  std::stable_sort(pl.order.begin(), pl.order.end(),
                   [&](int x, int y) { return lengths[static_cast<std::size_t>(x)] > lengths[static_cast<std::size_t>(y)]; });
  for (int k = 0; k < ns; ++k) {
    const int n = lengths[static_cast<std::size_t>(pl.order[static_cast<std::size_t>(k)])];
    const int nt = tiles_per_side(n);
    pl.len.push_back(n);
    pl.nt.push_back(nt);
    pl.tab_off.push_back(pl.tab_cells);
    pl.code_off.push_back(pl.code_bytes);
    pl.tab_cells += tile_count(nt) * T * T;
    pl.code_bytes += static_cast<std::size_t>(nt) * T;
    pl.max_nt = std::max(pl.max_nt, nt);
  }
  pl.lookahead = g_tuning.lookahead;
  const int cap = panel_capacity(cell_bytes, device);
  const long long target = static_cast<long long>(std::max(1, g_tuning.split_waves)) * cap;
  for (int d = 0; d < pl.max_nt; ++d) {
    pl.prefix_at.push_back(pl.prefix_all.size());
    int c = 0, total = 0;
    pl.prefix_all.push_back(0);
    while (c < ns && pl.nt[static_cast<std::size_t>(c)] > d) {
      total += pl.nt[static_cast<std::size_t>(c)] - d;
      pl.prefix_all.push_back(total);
      ++c;
    }
    const int numK = panel_numk(pl, d);
    int S = numK > 0 ? 1 : 0;
    if (numK > 0 && total < target) S = static_cast<int>(std::min<long long>(numK, (target + total - 1) / total));
    pl.cnt.push_back(c);
    pl.tiles.push_back(total);
    pl.splits.push_back(S);
    if (S > 0) pl.scratch_cells = std::max(pl.scratch_cells, static_cast<std::size_t>(total) * S * T * T);
  }
  return pl;
}

// The streams and the events that order them (destroyed on scope exit, also on a throw): finalize, the
// panels (two, by the parity of the diagonal, with Tuning::panel_streams = 2) and the copies back.
struct Streams {
  cudaStream_t fin = nullptr, pan[2] = {}, copy = nullptr;  // copy: the tables back (keep_tables)
  cudaEvent_t fin_done[4] = {}, pan_done[2] = {};
  explicit Streams(bool finalize_first) {
    int least = 0, greatest = 0;
    CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    // finalize_first: finalize is the critical path; its blocks go to the SMs before pending panel blocks.
    CUDA_CHECK(cudaStreamCreateWithPriority(&fin, cudaStreamNonBlocking, finalize_first ? greatest : least));
    for (auto& s : pan) CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
    for (auto& e : fin_done) {
      CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      CUDA_CHECK(cudaEventRecord(e, fin));  // "done" before anything runs
    }
    for (auto& e : pan_done) CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  }
  ~Streams() {
    if (fin) cudaStreamSynchronize(fin);
    for (auto s : pan)
      if (s) cudaStreamSynchronize(s);
    if (copy) cudaStreamSynchronize(copy);
    for (auto e : fin_done)
      if (e) cudaEventDestroy(e);
    for (auto e : pan_done)
      if (e) cudaEventDestroy(e);
    if (copy) cudaStreamDestroy(copy);
    for (auto s : pan)
      if (s) cudaStreamDestroy(s);
    if (fin) cudaStreamDestroy(fin);
  }
  Streams(const Streams&) = delete;
  Streams& operator=(const Streams&) = delete;
};

// Writes one byte of every 4 KiB page of [p, p + bytes), on up to 16 threads.
void touch_pages(unsigned char* p, std::size_t bytes) {
  const std::size_t pages = bytes / 4096;
  const std::size_t threads = std::max<std::size_t>(1, std::min<std::size_t>(16, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t)
    pool.emplace_back([=] {
      for (std::size_t k = pages * t / threads; k < pages * (t + 1) / threads; ++k)
        *reinterpret_cast<volatile unsigned char*>(p + k * 4096) = 0;
    });
  for (auto& th : pool) th.join();
}

// Host memory for the tiled path's tables, kept by each calling thread (each GPU worker) for its
// next groups and registered with CUDA (page-locked), so that the tables come back at the bus's
// speed by asynchronous copies while the later diagonals compute. Measured on the H100 machine:
// cudaHostAlloc takes 0.55 s per GiB, a copy into fresh pageable memory 0.85 s per GiB (page
// faults), while registering memory already faulted in (transparent huge pages, touched by all
// threads) takes a few hundredths. The kept memory is at most an eighth of the machine's and 8 GiB
// (see get() for larger groups); a failed registration falls back to pageable vectors.
class HostTableArena {
 public:
  HostTableArena() = default;
  HostTableArena(const HostTableArena&) = delete;
  HostTableArena& operator=(const HostTableArena&) = delete;
  ~HostTableArena() {
    unmap(kept_);
    unmap(once_);
  }
  // Memory for `bytes` of tables, valid until the next call. Up to keep_cap() it is the kept
  // mapping (grown when needed); a larger group (the tables of one fold of 66,000 nt or more are
  // 32-bit, 8.6 GiB and up) gets a mapping of its own, released at the next call. nullptr when
  // registering fails or the tables need more than half the machine's memory.
  void* get(std::size_t bytes) {
    release_once();
    if (bytes == 0 || bytes > ram() / 2) return nullptr;
    if (bytes > keep_cap()) {
      once_ = map_registered(bytes);
      return once_.data;
    }
    if (bytes <= kept_.size) return kept_.data;
    unmap(kept_);
    kept_ = map_registered(std::min(keep_cap(), std::max(bytes, kept_.size + kept_.size / 2)));  // grow by half
    return kept_.data;
  }
  void release_once() { unmap(once_); }

 private:
  struct Mapping {
    void* data = nullptr;
    std::size_t size = 0;
  };
  static std::size_t ram() {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : 0;
  }
  static std::size_t keep_cap() { return std::min<std::size_t>(std::size_t{8} << 30, ram() / 8); }
  static Mapping map_registered(std::size_t bytes) {
    const std::size_t huge = std::size_t{2} << 20;
    const std::size_t want = (bytes + huge - 1) / huge * huge;
    void* p = mmap(nullptr, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return {};
    (void)madvise(p, want, MADV_HUGEPAGE);  // fewer faults and pinned pages; a hint only
    // Fault the pages in on every core (one write per 4 KiB page) before registering them.
    touch_pages(static_cast<unsigned char*>(p), want);
    if (cudaHostRegister(p, want, cudaHostRegisterDefault) != cudaSuccess) {
      (void)cudaGetLastError();  // not sticky: fall back to pageable memory
      munmap(p, want);
      return {};
    }
    return {p, want};
  }
  static void unmap(Mapping& m) {
    if (m.data) {
      cudaHostUnregister(m.data);
      munmap(m.data, m.size);
    }
    m = {};
  }
  Mapping kept_, once_;
};

HostTableArena& thread_arena() {
  thread_local HostTableArena arena;
  return arena;
}

void* thread_host_tables(std::size_t bytes) { return thread_arena().get(bytes); }

template <typename Cell, bool REL>
void run_tiled(const std::vector<const std::uint8_t*>& seqs, const Plan& pl, const Params& p, FoldOutput what,
               GroupOutput& out) {
  const bool keep_tables = what == FoldOutput::tables;
  static_assert(!REL || sizeof(Cell) == 2, "relative cells are 16-bit");
  const int ns = static_cast<int>(pl.order.size());
  const PairTable pt = make_pair_table(p.weights);
  // sequences, padded with N up to nt * T codes
  std::vector<std::uint8_t> codes(pl.code_bytes, static_cast<std::uint8_t>(seq::N));
  for (int k = 0; k < ns; ++k)
    std::copy(seqs[static_cast<std::size_t>(pl.order[static_cast<std::size_t>(k)])],
              seqs[static_cast<std::size_t>(pl.order[static_cast<std::size_t>(k)])] + pl.len[static_cast<std::size_t>(k)],
              codes.begin() + static_cast<std::ptrdiff_t>(pl.code_off[static_cast<std::size_t>(k)]));
  gpu::DeviceBuffer<Cell> tab(pl.tab_cells), scratch0(std::max<std::size_t>(pl.scratch_cells, 1)),
      scratch1(pl.lookahead ? std::max<std::size_t>(pl.scratch_cells, 1) : 0);
  gpu::DeviceBuffer<std::uint8_t> dcodes;
  gpu::DeviceBuffer<std::size_t> dtab_off, dcode_off;
  gpu::DeviceBuffer<int> dnt, dlen, dprefix;
  gpu::DeviceBuffer<long long> dscores(static_cast<std::size_t>(ns));
  gpu::DeviceBuffer<std::int32_t> dtbase(REL ? pl.tab_cells / (T * T) : 0);
  dcodes.upload(codes);
  dtab_off.upload(pl.tab_off);
  dcode_off.upload(pl.code_off);
  dnt.upload(pl.nt);
  dlen.upload(pl.len);
  dprefix.upload(pl.prefix_all);
  CUDA_CHECK(cudaStreamSynchronize(nullptr));  // the uploads ran on the default stream; the kernels use others
  const SeqInfo si{dtab_off.get(), dnt.get(), dcode_off.get(), dlen.get(), REL ? dtbase.get() : nullptr};
  CUDA_CHECK(cudaFuncSetAttribute(finalize_kernel<Cell, REL>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(final_smem<Cell, REL>())));
  CUDA_CHECK(cudaFuncSetAttribute(finalize_kernel<Cell, REL>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                  cudaSharedmemCarveoutMaxShared));
  const int op = static_cast<int>(g_tuning.op);
  // Split-K slices folded into finalize's load instead of the reduce kernel (Tuning::fused_slices).
  const int fused = std::max(1, g_tuning.fused_slices);
  // Padding of the 16-bit panel's blocks (Tuning::panel_blocks_per_sm); none for the 32-bit one.
  cudaFuncAttributes fin_attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&fin_attr, finalize_kernel<Cell, REL>));
  const std::size_t pad =
      sizeof(Cell) == 2 ? panel_padding(2, device_of_current(), final_smem<Cell, REL>() + fin_attr.sharedSizeBytes) : 0;
  if constexpr (sizeof(Cell) == 2) {
    if (op == 1) allow_panel_padding<1, REL>(pad);
    else if (op == 2) allow_panel_padding<2, REL>(pad);
    else allow_panel_padding<0, REL>(pad);
  }
  // Two streams: finalize(d) on `fin`, panel(d) on `pan`. With the lookahead schedule panel(d) needs
  // only diagonals <= d-2 (its K range skips the two edge tiles), so it runs beside finalize(d-1);
  // scratch alternates between two buffers by the parity of d.
  Streams st(g_tuning.finalize_priority);
  // Tables copied back while the later diagonals compute. Tile row I of a sequence with nt tiles a
  // side is final once diagonal nt-1-I is, and rows are contiguous in the tile-packed layout, so
  // after diagonal d the rows from nt-1-d on are a final suffix of that sequence's table. Each
  // sequence's newly final rows go back on the copy stream once they reach kCopyChunk bytes (or the
  // table is complete); only the last few rows are left to copy after the last kernel.
  Cell* const host = keep_tables ? static_cast<Cell*>(thread_host_tables(pl.tab_cells * sizeof(Cell))) : nullptr;
  constexpr std::size_t kCopyChunk = std::size_t{16} << 20;
  std::vector<int> copied_from(pl.nt);  // per position: rows from here on are copied (nt: none)
  auto row_start = [](int I, int nt) { return I >= nt ? tile_count(nt) * T * T : tile_index(I, I, nt) * T * T; };
  auto copy_final_rows = [&](int d) {
    bool waited = false;
    for (int k = 0; k < pl.cnt[static_cast<std::size_t>(d)]; ++k) {
      const auto ku = static_cast<std::size_t>(k);
      const int nt = pl.nt[ku], from = std::max(0, nt - 1 - d);
      if (from >= copied_from[ku]) continue;
      const std::size_t a = row_start(from, nt), b = row_start(copied_from[ku], nt);
      if (from > 0 && (b - a) * sizeof(Cell) < kCopyChunk) continue;
      if (!waited) CUDA_CHECK(cudaStreamWaitEvent(st.copy, st.fin_done[d % 4], 0));  // finalize(d)
      waited = true;
      CUDA_CHECK(cudaMemcpyAsync(host + pl.tab_off[ku] + a, tab.get() + pl.tab_off[ku] + a, (b - a) * sizeof(Cell),
                                 cudaMemcpyDeviceToHost, st.copy));
      copied_from[ku] = from;
    }
  };
  for (int d = 0; d < pl.max_nt; ++d) {
    const auto du = static_cast<std::size_t>(d);
    const Diag w{dprefix.get() + pl.prefix_at[du], pl.cnt[du], d, panel_koff(pl), panel_numk(pl, d)};
    const int tiles = pl.tiles[du], S = pl.splits[du];
    Cell* scratch = (pl.lookahead && (d & 1)) ? scratch1.get() : scratch0.get();
    // Split-K slices finalize maxes as it loads its partials: all S, or 1 after the reduce kernel.
    const int slices = S > fused ? 1 : S;
    // Panels of odd and even diagonals on their own streams (Tuning::panel_streams): with the lookahead
    // schedule no panel reads another's output, and each still waits for the finalize launches it reads.
    const int ps = pl.lookahead && g_tuning.panel_streams > 1 ? (d & 1) : 0;
    cudaStream_t const pan = st.pan[ps];
    if (S > 0) {
      if (pl.lookahead) {
        CUDA_CHECK(cudaStreamWaitEvent(pan, st.fin_done[(d + 2) % 4], 0));  // finalize(d-2)
      } else {
        CUDA_CHECK(cudaStreamWaitEvent(pan, st.fin_done[(d + 3) % 4], 0));  // finalize(d-1)
      }
      const unsigned blocks = static_cast<unsigned>(tiles) * static_cast<unsigned>(S);
      if constexpr (sizeof(Cell) == 2) {
        const bool small = static_cast<long long>(tiles) * w.numK <= g_tuning.panel_cap_products;
        const std::size_t dyn = small ? pad : 0;
        if (op == 1) panel16_kernel<1, REL><<<blocks, kPanelThreads, dyn, pan>>>(tab.get(), si, w, S, scratch);
        else if (op == 2) panel16_kernel<2, REL><<<blocks, kPanelThreads, dyn, pan>>>(tab.get(), si, w, S, scratch);
        else panel16_kernel<0, REL><<<blocks, kPanelThreads, dyn, pan>>>(tab.get(), si, w, S, scratch);
      } else {
        if (op == 1) panel32_kernel<1><<<blocks, kPanelThreads, 0, pan>>>(tab.get(), si, w, S, scratch);
        else if (op == 2) panel32_kernel<2><<<blocks, kPanelThreads, 0, pan>>>(tab.get(), si, w, S, scratch);
        else panel32_kernel<0><<<blocks, kPanelThreads, 0, pan>>>(tab.get(), si, w, S, scratch);
      }
      CUDA_CHECK_LAUNCH();
      if (slices < S) {
        const long long words = static_cast<long long>(tiles) * (T * T * static_cast<int>(sizeof(Cell)) / 4);
        const int rb = static_cast<int>(std::min<long long>((words + 255) / 256, 8192));
        reduce_kernel<static_cast<int>(sizeof(Cell))>
            <<<rb, 256, 0, pan>>>(reinterpret_cast<unsigned*>(scratch), words, S);
        CUDA_CHECK_LAUNCH();
      }
      CUDA_CHECK(cudaEventRecord(st.pan_done[ps], pan));
      CUDA_CHECK(cudaStreamWaitEvent(st.fin, st.pan_done[ps], 0));
    }
    finalize_kernel<Cell, REL><<<static_cast<unsigned>(tiles), kFinalThreads, final_smem<Cell, REL>(), st.fin>>>(
        tab.get(), si, dcodes.get(), w, S, S > 0 ? scratch : nullptr, slices, pl.lookahead, p, pt);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaEventRecord(st.fin_done[d % 4], st.fin));
    if (host) copy_final_rows(d);
  }
  CUDA_CHECK(cudaStreamSynchronize(st.fin));
  scores_kernel<Cell, REL><<<(ns + 127) / 128, 128>>>(tab.get(), si, ns, dscores.get());
  CUDA_CHECK_LAUNCH();
  out.cell_bytes = static_cast<int>(sizeof(Cell));
  out.scores = in_caller_order(dscores.to_host(), pl.order);  // to_host synchronizes
  out.relative = REL;
  if (what == FoldOutput::structures)
    out.structures = in_caller_order(
        trace_structures(DeviceTables{tab.get(), static_cast<int>(sizeof(Cell)), REL ? dtbase.get() : nullptr, dtab_off.get(),
                                      dcodes.get(), dcode_off.get(), ns},
                         pl.len, p),
        pl.order);
  if (keep_tables) {
    const auto t0 = std::chrono::steady_clock::now();
    if constexpr (REL) {  // the bases, 4 bytes per tile, after the last kernel
      out.tile_bases.assign(static_cast<std::size_t>(ns), {});
      out.tile_base.assign(static_cast<std::size_t>(ns), nullptr);
      for (int k = 0; k < ns; ++k) {
        const auto ku = static_cast<std::size_t>(k);
        const auto at = static_cast<std::size_t>(pl.order[ku]);
        auto& b = out.tile_bases[at];
        b.resize(tile_count(pl.nt[ku]));
        CUDA_CHECK(cudaMemcpy(b.data(), dtbase.get() + pl.tab_off[ku] / (T * T), b.size() * sizeof(std::int32_t),
                              cudaMemcpyDeviceToHost));
        out.tile_base[at] = b.data();
      }
    }
    auto& views = [&]() -> std::vector<const Cell*>& {
      if constexpr (sizeof(Cell) == 2) return out.table16;
      else return out.table32;
    }();
    views.assign(static_cast<std::size_t>(ns), nullptr);
    if (host) {
      CUDA_CHECK(cudaStreamSynchronize(st.copy));  // the copies issued diagonal by diagonal
      for (int k = 0; k < ns; ++k)
        views[static_cast<std::size_t>(pl.order[static_cast<std::size_t>(k)])] = host + pl.tab_off[static_cast<std::size_t>(k)];
    } else {
      auto& tables = [&]() -> std::vector<UninitVector<Cell>>& {
        if constexpr (sizeof(Cell) == 2) return out.tables16;
        else return out.tables32;
      }();
      tables.assign(static_cast<std::size_t>(ns), {});
      for (int k = 0; k < ns; ++k) {
        const std::size_t cells = tile_count(pl.nt[static_cast<std::size_t>(k)]) * T * T;
        const auto at = static_cast<std::size_t>(pl.order[static_cast<std::size_t>(k)]);
        auto& t = tables[at];
        t.resize(cells);
        CUDA_CHECK(cudaMemcpy(t.data(), tab.get() + pl.tab_off[static_cast<std::size_t>(k)], cells * sizeof(Cell),
                              cudaMemcpyDeviceToHost));
        views[at] = t.data();
      }
    }
    out.tables_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
}

template <typename Cell>
void run_smem(const std::vector<const std::uint8_t*>& seqs, const std::vector<int>& lengths, const Params& p,
              FoldOutput what, GroupOutput& out, int /*device*/) {
  const bool keep_tables = what == FoldOutput::tables, on_device = what != FoldOutput::scores;
  const int ns = static_cast<int>(seqs.size());
  std::vector<int> order(static_cast<std::size_t>(ns));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    return lengths[static_cast<std::size_t>(x)] > lengths[static_cast<std::size_t>(y)];
  });
  std::vector<std::uint8_t> codes;
  std::vector<std::size_t> code_off, out_off;
  std::vector<int> lens;
  std::size_t out_cells = 0;
  int max_n = 0;
  for (int k = 0; k < ns; ++k) {
    const auto o = static_cast<std::size_t>(order[static_cast<std::size_t>(k)]);
    const int n = lengths[o];
    code_off.push_back(codes.size());
    codes.insert(codes.end(), seqs[o], seqs[o] + n);
    codes.push_back(static_cast<std::uint8_t>(seq::N));
    lens.push_back(n);
    out_off.push_back(out_cells);
    out_cells += tile_count(tiles_per_side(n)) * T * T;
    max_n = std::max(max_n, n);
  }
  const PairTable pt = make_pair_table(p.weights);
  gpu::DeviceBuffer<std::uint8_t> dcodes;
  gpu::DeviceBuffer<std::size_t> dcode_off, dout_off;
  gpu::DeviceBuffer<int> dlens;
  gpu::DeviceBuffer<long long> dscores(static_cast<std::size_t>(ns));
  gpu::DeviceBuffer<Cell> dout;
  dcodes.upload(codes);
  dcode_off.upload(code_off);
  dout_off.upload(out_off);
  dlens.upload(lens);
  if (on_device) dout.allocate(out_cells);
  const std::size_t smem = static_cast<std::size_t>(max_n + 1) * static_cast<std::size_t>(smem_ld(max_n)) * sizeof(Cell);
  CUDA_CHECK(cudaFuncSetAttribute(smem_kernel<Cell>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  smem_kernel<Cell><<<static_cast<unsigned>(ns), kSmemThreads, smem>>>(dcodes.get(), dcode_off.get(), dlens.get(), p,
                                                                        pt, dscores.get(), on_device ? dout.get() : nullptr,
                                                                        dout_off.get());
  CUDA_CHECK_LAUNCH();
  out.cell_bytes = static_cast<int>(sizeof(Cell));
  out.scores = in_caller_order(dscores.to_host(), order);
  if (what == FoldOutput::structures)
    out.structures = in_caller_order(
        trace_structures(
            DeviceTables{dout.get(), static_cast<int>(sizeof(Cell)), nullptr, dout_off.get(), dcodes.get(), dcode_off.get(), ns},
            lens, p),
        order);
  if (keep_tables) {
    auto& tables = [&]() -> std::vector<UninitVector<Cell>>& {
      if constexpr (sizeof(Cell) == 2) return out.tables16;
      else return out.tables32;
    }();
    tables.assign(static_cast<std::size_t>(ns), {});
    const auto all = dout.to_host();
    auto& views = [&]() -> std::vector<const Cell*>& {
      if constexpr (sizeof(Cell) == 2) return out.table16;
      else return out.table32;
    }();
    views.assign(static_cast<std::size_t>(ns), nullptr);
    for (int k = 0; k < ns; ++k) {
      const std::size_t cells = tile_count(tiles_per_side(lens[static_cast<std::size_t>(k)])) * T * T;
      const auto from = all.begin() + static_cast<std::ptrdiff_t>(out_off[static_cast<std::size_t>(k)]);
      const auto at = static_cast<std::size_t>(order[static_cast<std::size_t>(k)]);
      tables[at].assign(from, from + static_cast<std::ptrdiff_t>(cells));
      views[at] = tables[at].data();
    }
  }
}

}  // namespace

void release_large_host_tables() { thread_arena().release_once(); }

void set_tuning(const Tuning& t) { g_tuning = t; }
Tuning tuning() { return g_tuning; }

int cell_bytes_for(int max_n, const Params& p) {
  const bool plain16 = packed::fits_plain16(max_n, p.weights);
  const bool rel = packed::relative_applicable(p.weights);
  if (g_tuning.force_cell_bytes == 2 || g_tuning.force_cell_bytes == 4) {
    if (g_tuning.force_cell_bytes == 2 && !plain16 && !rel)
      throw UsageError("nussinov GPU: 16-bit cells forced but neither the score bound nor the pair weights allow them");
    return g_tuning.force_cell_bytes;
  }
  return plain16 || rel ? 2 : 4;
}

bool relative_cells(int max_n, int cell_bytes, const Params& p) {
  if (cell_bytes != 2 || !packed::relative_applicable(p.weights)) return false;
  return g_tuning.force_relative || packed::uses_relative(max_n, p.weights);
}

// The GPU traceback's structures and stacks (counted whether or not a fold traces: a few bytes a base).
static std::size_t traced_bytes(const std::vector<int>& lengths) {
  std::size_t b = 0;
  for (int n : lengths) b += trace_bytes(n);
  return b;
}

std::size_t tiled_bytes(const std::vector<int>& lengths, int cell_bytes, int device) {
  if (lengths.empty()) return 0;
  const Plan pl = make_plan(lengths, cell_bytes, device);
  const auto cb = static_cast<std::size_t>(cell_bytes);
  return (pl.tab_cells + (pl.lookahead ? 2 : 1) * std::max<std::size_t>(pl.scratch_cells, 1)) * cb + pl.code_bytes +
         pl.tab_cells / (T * T) * sizeof(std::int32_t) +  // tile bases (relative cells)
         pl.prefix_all.size() * sizeof(int) + lengths.size() * (2 * sizeof(std::size_t) + 2 * sizeof(int) + 8) + (1u << 20) +
         traced_bytes(lengths);
}

std::size_t tiled_bytes_added(int n, int cell_bytes) {
  const int nt = tiles_per_side(n);
  const auto cb = static_cast<std::size_t>(cell_bytes);
  const std::size_t tiles = tile_count(nt), buffers = g_tuning.lookahead ? 2 : 1;
  // make_plan's scratch is the largest over diagonals d of total(d) x splits(d) tiles. Where total(d)
  // reaches the split target, splits is 1 and a sequence adds at most its nt tiles of that diagonal;
  // below the target, total x splits stays under the target plus total. So a group's scratch is at most
  // the target plus the sum of its sequences' nt tiles, a buffer.
  return tiles * T * T * cb + buffers * static_cast<std::size_t>(nt) * T * T * cb + static_cast<std::size_t>(nt) * T +
         tiles * sizeof(std::int32_t) + static_cast<std::size_t>(nt) * sizeof(int) +
         (2 * sizeof(std::size_t) + 2 * sizeof(int) + 8) + trace_bytes(n);
}

void tiled_fold(const std::vector<const std::uint8_t*>& seqs, const std::vector<int>& lengths, const Params& p,
                int cell_bytes, FoldOutput what, GroupOutput& out, int device) {
  out = GroupOutput{};
  if (seqs.empty()) return;
  for (int n : lengths)
    if (n <= 0) throw UsageError("nussinov tiled_fold: every sequence needs at least one base");
  CUDA_CHECK(cudaSetDevice(device));
  const Plan pl = make_plan(lengths, cell_bytes, device);
  if (cell_bytes == 2 && relative_cells(pl.len.front(), cell_bytes, p)) run_tiled<std::int16_t, true>(seqs, pl, p, what, out);
  else if (cell_bytes == 2) run_tiled<std::int16_t, false>(seqs, pl, p, what, out);
  else run_tiled<std::int32_t, false>(seqs, pl, p, what, out);
}

int smem_max_n(int cell_bytes) { return cell_bytes == 2 ? 280 : 192; }

std::size_t smem_bytes(const std::vector<int>& lengths, int cell_bytes, FoldOutput what) {
  std::size_t b = 1u << 20;
  for (int n : lengths) {
    b += static_cast<std::size_t>(n) + 1 + 2 * sizeof(std::size_t) + sizeof(int) + sizeof(long long);
    if (what != FoldOutput::scores) b += tile_count(tiles_per_side(n)) * T * T * static_cast<std::size_t>(cell_bytes);
    if (what == FoldOutput::structures) b += trace_bytes(n);
  }
  return b;
}

void smem_fold(const std::vector<const std::uint8_t*>& seqs, const std::vector<int>& lengths, const Params& p,
               int cell_bytes, FoldOutput what, GroupOutput& out, int device) {
  out = GroupOutput{};
  if (seqs.empty()) return;
  for (int n : lengths)
    if (n <= 0 || n > smem_max_n(cell_bytes))
      throw UsageError("nussinov smem_fold: sequence length outside 1.." + std::to_string(smem_max_n(cell_bytes)));
  CUDA_CHECK(cudaSetDevice(device));
  if (cell_bytes == 2) run_smem<std::int16_t>(seqs, lengths, p, what, out, device);
  else run_smem<std::int32_t>(seqs, lengths, p, what, out, device);
}

}  // namespace screen::kernels::nussinov
