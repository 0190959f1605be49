#pragma once
// Device-side pieces shared by the BPMax kernels (bpmax_tables.cu, bpmax_patch_up.cu): cell types
// (16-bit pairs in a word, or 32-bit), the work-item decoder, slab addressing and the checked launch.
#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

#include "gpu/cuda_check.hpp"
#include "kernels/bpmax/bpmax_launch.hpp"
#include "stages/bpmax/bpmax_defs.hpp"

namespace screen::kernels::bpmax::detail {

using screen::bpmax::kMinLoop;
using screen::bpmax::query_interval_index;

// ---- cells -------------------------------------------------------------------------------------

template <class Cell>
struct Cells;

// 16-bit cells: a word holds two, the fused instruction updates both.
template <>
struct Cells<std::int16_t> {
  static constexpr int kNeg = kNeg16;
  static constexpr int kWords = 4;  // words per 8 cells
  using Word = unsigned;
  struct Eight {
    uint4 v;
  };
  __device__ static Eight load8(const std::int16_t* p) { return {*reinterpret_cast<const uint4*>(p)}; }
  __device__ static void store8(std::int16_t* p, const Eight& e) { *reinterpret_cast<uint4*>(p) = e.v; }
  __device__ static Eight fill8(int v) {
    const unsigned w = pack(v, v);
    return {make_uint4(w, w, w, w)};
  }
  // Cell c (0..7) of an eight.
  __device__ static int get(const Eight& e, int c) { return cell(word(e, c >> 1), c & 1); }
  __device__ static void set_word(Eight& e, int w, Word x) {
    if (w == 0) e.v.x = x;
    else if (w == 1) e.v.y = x;
    else if (w == 2) e.v.z = x;
    else e.v.w = x;
  }
  __device__ static void set(Eight& e, int c, int v) {
    const Word x = word(e, c >> 1);
    set_word(e, c >> 1, (c & 1) ? pack(cell(x, 0), v) : pack(v, cell(x, 1)));
  }
  // A value in both halves of a word.
  __device__ static Word splat_value(int v) { return pack(v, v); }
  __device__ static Word word(const Eight& e, int w) {
    return w == 0 ? e.v.x : w == 1 ? e.v.y : w == 2 ? e.v.z : e.v.w;
  }
  // Value r of the eight in both halves of a word.
  __device__ static Word splat(const Eight& e, int r) {
    return __byte_perm(word(e, r >> 1), 0, (r & 1) ? 0x3232 : 0x1010);
  }
  // Cell r of the aligned eight at p, in both halves of a word, from one 32-bit load (where a product
  // needs one cell of an eight, the whole eight need not be held in registers).
  __device__ static Word splat_at(const std::int16_t* p, int r) {
    return __byte_perm(reinterpret_cast<const unsigned*>(p)[r >> 1], 0, (r & 1) ? 0x3232 : 0x1010);
  }
  __device__ static Word addmax(Word a, Word b, Word c) { return __viaddmax_s16x2(a, b, c); }
  __device__ static Word max(Word a, Word b) { return __vmaxs2(a, b); }
  __device__ static Word min(Word a, Word b) { return __vmins2(a, b); }
  // All ones in the cells c of [a, b] (clamped to 0 .. 7), zero elsewhere: a byte mask, each byte
  // repeated into its cell's half word.
  __device__ static Eight range_mask(int a, int b) {
    a = a < 0 ? 0 : a;
    b = b > 7 ? 7 : b;
    const unsigned long long m = a > b ? 0ull : (~0ull << (8 * a)) & (~0ull >> (8 * (7 - b)));
    const unsigned lo = static_cast<unsigned>(m), hi = static_cast<unsigned>(m >> 32);
    return {make_uint4(__byte_perm(lo, hi, 0x1100), __byte_perm(lo, hi, 0x3322), __byte_perm(lo, hi, 0x5544),
                       __byte_perm(lo, hi, 0x7766))};
  }
  // The eight (p[7], c[0], ..., c[6]): the row of eight one cell earlier.
  __device__ static Eight shift_in(const Eight& p, const Eight& c) {
    return {make_uint4(__byte_perm(p.v.w, c.v.x, 0x5432), __byte_perm(c.v.x, c.v.y, 0x5432),
                       __byte_perm(c.v.y, c.v.z, 0x5432), __byte_perm(c.v.z, c.v.w, 0x5432))};
  }
  __device__ static int cell(Word w, int half) {
    return static_cast<std::int16_t>(half ? (w >> 16) : (w & 0xffffu));
  }
  __device__ static Word pack(int lo, int hi) {
    return (static_cast<unsigned>(lo) & 0xffffu) | (static_cast<unsigned>(hi) << 16);
  }
  // Cell c (0..7) of a row of words.
  __device__ static int get(const Word* row, int c) { return cell(row[c >> 1], c & 1); }
  __device__ static void set(Word* row, int c, int v) {
    row[c >> 1] = (c & 1) ? pack(cell(row[c >> 1], 0), v) : pack(v, cell(row[c >> 1], 1));
  }
};

// 32-bit cells: one per word.
template <>
struct Cells<std::int32_t> {
  static constexpr int kNeg = kNeg32;
  static constexpr int kWords = 8;
  using Word = int;
  struct Eight {
    int4 lo, hi;
  };
  __device__ static Eight load8(const std::int32_t* p) {
    return {reinterpret_cast<const int4*>(p)[0], reinterpret_cast<const int4*>(p)[1]};
  }
  __device__ static void store8(std::int32_t* p, const Eight& e) {
    reinterpret_cast<int4*>(p)[0] = e.lo;
    reinterpret_cast<int4*>(p)[1] = e.hi;
  }
  __device__ static Eight fill8(int v) { return {make_int4(v, v, v, v), make_int4(v, v, v, v)}; }
  __device__ static int get(const Eight& e, int c) { return word(e, c); }
  __device__ static void set_word(Eight& e, int w, Word x) {
    int4& q = w < 4 ? e.lo : e.hi;
    const int k = w & 3;
    if (k == 0) q.x = x;
    else if (k == 1) q.y = x;
    else if (k == 2) q.z = x;
    else q.w = x;
  }
  __device__ static void set(Eight& e, int c, int v) { set_word(e, c, v); }
  __device__ static Word splat_value(int v) { return v; }
  __device__ static Word word(const Eight& e, int w) {
    const int4& q = w < 4 ? e.lo : e.hi;
    const int k = w & 3;
    return k == 0 ? q.x : k == 1 ? q.y : k == 2 ? q.z : q.w;
  }
  __device__ static Word splat(const Eight& e, int r) { return word(e, r); }
  __device__ static Word splat_at(const std::int32_t* p, int r) { return p[r]; }
  __device__ static Word addmax(Word a, Word b, Word c) { return __viaddmax_s32(a, b, c); }
  __device__ static Word max(Word a, Word b) { return a > b ? a : b; }
  __device__ static Word min(Word a, Word b) { return a < b ? a : b; }
  __device__ static Eight range_mask(int a, int b) {
    Eight e;
#pragma unroll
    for (int c = 0; c < 8; ++c) set_word(e, c, c >= a && c <= b ? -1 : 0);
    return e;
  }
  __device__ static Eight shift_in(const Eight& p, const Eight& c) {
    return {make_int4(p.hi.w, c.lo.x, c.lo.y, c.lo.z), make_int4(c.lo.w, c.hi.x, c.hi.y, c.hi.z)};
  }
  __device__ static int get(const Word* row, int c) { return row[c]; }
  __device__ static void set(Word* row, int c, int v) { row[c] = v; }
};

// Barrier `id` for `threads` threads of the block (a multiple of 32): id 0 with the whole block is
// __syncthreads(), reachable from different places in the code; others let some warps meet alone.
__device__ __forceinline__ void named_barrier(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

__device__ __forceinline__ int imax(int a, int b) { return a > b ? a : b; }
__device__ __forceinline__ int imin(int a, int b) { return a < b ? a : b; }

// The cells of `x` where `mask` (Cells::range_mask) is set, minus infinity elsewhere.
template <class Cell>
__device__ __forceinline__ typename Cells<Cell>::Eight keep(const typename Cells<Cell>::Eight& x,
                                                            const typename Cells<Cell>::Eight& mask) {
  using C = Cells<Cell>;
  const typename C::Word neg = C::splat_value(C::kNeg);
  typename C::Eight r;
#pragma unroll
  for (int w = 0; w < C::kWords; ++w) C::set_word(r, w, (C::word(x, w) & C::word(mask, w)) | (neg & ~C::word(mask, w)));
  return r;
}

// The larger of two eights, cell by cell.
template <class Cell>
__device__ __forceinline__ typename Cells<Cell>::Eight max8(const typename Cells<Cell>::Eight& a,
                                                            const typename Cells<Cell>::Eight& b) {
  using C = Cells<Cell>;
  typename C::Eight r;
#pragma unroll
  for (int w = 0; w < C::kWords; ++w) C::set_word(r, w, C::max(C::word(a, w), C::word(b, w)));
  return r;
}

// One row of a micro-tile takes a max-plus step: row(c) = max(row(c), a + b(c)) for its 8 cells, with
// `a` already in both halves of a word (16-bit) or a cell (32-bit). The update every tile product of
// the double reduction and the patch-up is built from.
template <class Cell>
__device__ __forceinline__ void add_row(typename Cells<Cell>::Eight& row, typename Cells<Cell>::Word a,
                                        const typename Cells<Cell>::Eight& b) {
  using C = Cells<Cell>;
#pragma unroll
  for (int w = 0; w < C::kWords; ++w) C::set_word(row, w, C::addmax(a, C::word(b, w), C::word(row, w)));
}

// The pair p whose items [prefix[p], prefix[p+1]) hold `item` (pairs with no items are skipped).
__device__ inline int find_pair(const std::int64_t* prefix, int npairs, std::int64_t item) {
  int lo = 0, hi = npairs;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (prefix[mid] <= item)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

// The work item of this block: pair, slab (query start i1 of this launch's d1) and first column i0
// of a tile `width` columns wide (items ordered by pair, then i1, then tile; a launch's work list,
// bpmax_launch.hpp, gives each pair's item counts and the query starts of its slabs).
struct SlabTile {
  PairDesc pd;
  int i1 = 0, i0 = 0;
};
__device__ inline SlabTile slab_tile(const BatchView& b, const std::int64_t* prefix, int width) {
  const std::int64_t item = blockIdx.x;
  const int p = find_pair(prefix, b.npairs, item);
  SlabTile t;
  t.pd = b.pairs[p];
  const int tiles = tiles_across(t.pd.m, width);
  const std::int64_t local = item - prefix[p];
  t.i1 = static_cast<int>(prefix[prefix[b.npairs + 1 + p] + local / tiles]);
  t.i0 = static_cast<int>(local % tiles) * width;
  return t;
}

// The slab layout's index maps (bpmax_launch.hpp), for every kernel that reads or writes slab rows.
// Cells of a slab row, and its 8-cell chunks.
__device__ __forceinline__ int row_cells(const PairDesc& pd) { return f_row_cells(pd.l2); }
__device__ __forceinline__ int row_chunks(const PairDesc& pd) { return f_row_cells(pd.l2) / 8; }
// The slab of query interval (i1, i1 + d1): the one computed for the first interval with its bases.
template <class Cell>
__device__ Cell* slab_ptr(Cell* f, const PairDesc& pd, int i1, int d1) {
  const std::int64_t slab = __ldg(pd.slabs + query_interval_index(pd.n, i1, d1));
  return f + pd.f + slab * static_cast<std::int64_t>(pd.m) * row_cells(pd);
}
// Row i2 of a slab: its column c holds the interval (i2, row_first(i2) + c).
template <class Cell>
__device__ __forceinline__ Cell* slab_row(Cell* slab, const PairDesc& pd, int i2) {
  return slab + static_cast<std::int64_t>(i2) * row_cells(pd);
}
__device__ __forceinline__ int row_first(int i2) { return i2 & ~7; }
// The column of cell (i2, i2 + d) in row i2, and d = j2 - i2 of the first cell of chunk q of row i2
// (cell k of the chunk has chunk_d(i2, q) + k).
__device__ __forceinline__ int row_column(int i2, int d) { return d + (i2 & 7); }
__device__ __forceinline__ int chunk_d(int i2, int q) { return 8 * q - (i2 & 7); }
// Whether (i2, i2 + d) is a cell of the band inside the target (every other cell of a row is minus infinity).
__device__ __forceinline__ bool in_band(int i2, int d, int l2, int m) { return d >= 0 && d < l2 && i2 + d < m; }

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// One 8-cell chunk (16 or 32 bytes, aligned) copied from global to shared byte address `to` without
// passing through registers (cp.async, cached in L2 only); visible to the block after wait_async_copies()
// and a barrier.
template <class Cell>
__device__ __forceinline__ void copy_chunk_to(unsigned to, const char* from) {
#pragma unroll
  for (int k = 0; k < static_cast<int>(sizeof(Cell) / 2); ++k)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to + 16 * k), "l"(from + 16 * k));
}
template <class Cell>
__device__ __forceinline__ void copy_chunk_async(Cell* to, const Cell* from) {
  copy_chunk_to<Cell>(static_cast<unsigned>(__cvta_generic_to_shared(to)), reinterpret_cast<const char*>(from));
}
__device__ __forceinline__ void wait_async_copies() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }
// `n` chunks, the j-th from `from` + j `from_step` cells to shared byte address `to` + j `to_step`: the
// addresses advance by adds (a copy is its instruction and three adds, not the address arithmetic of a
// generic pointer per chunk).
template <class Cell>
__device__ __forceinline__ void copy_chunks_async(unsigned to, unsigned to_step, const Cell* from, std::int64_t from_step,
                                                  int n) {
  const char* src = reinterpret_cast<const char*>(from);
  const std::int64_t src_step = from_step * static_cast<std::int64_t>(sizeof(Cell));
#pragma unroll 4
  for (int j = 0; j < n; ++j, to += to_step, src += src_step) copy_chunk_to<Cell>(to, src);
}

// Eight consecutive cells of a slab row, read with 16-byte loads (rows are 16-byte aligned).
template <class Cell>
struct Row8 {
  union {
    uint4 q[sizeof(Cell) / 2];
    Cell v[8];
  };
};
template <class Cell>
__device__ __forceinline__ Row8<Cell> load_row8(const Cell* p) {
  Row8<Cell> r;
#pragma unroll
  for (int k = 0; k < static_cast<int>(sizeof(Cell) / 2); ++k) r.q[k] = __ldg(reinterpret_cast<const uint4*>(p) + k);
  return r;
}
// The same from shared memory (no read-only cache path).
template <class Cell>
__device__ __forceinline__ Row8<Cell> load_row8_shared(const Cell* p) {
  Row8<Cell> r;
#pragma unroll
  for (int k = 0; k < static_cast<int>(sizeof(Cell) / 2); ++k) r.q[k] = reinterpret_cast<const uint4*>(p)[k];
  return r;
}
template <class Cell>
__device__ __forceinline__ void store_row8(Cell* p, const Row8<Cell>& r) {
#pragma unroll
  for (int k = 0; k < static_cast<int>(sizeof(Cell) / 2); ++k) reinterpret_cast<uint4*>(p)[k] = r.q[k];
}

// Runs `f` with a value of the batch's cell type.
template <class F>
void by_cell(bool wide, F f) {
  if (wide)
    f(std::int32_t{});
  else
    f(std::int16_t{});
}

// One launch of `items` blocks with `bytes` of dynamic shared memory, checked.
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), std::int64_t items, int threads, std::size_t bytes, void* stream,
            Args&&... args) {
  if (bytes > 0)
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  kernel<<<static_cast<unsigned>(items), threads, bytes, static_cast<cudaStream_t>(stream)>>>(
      std::forward<Args>(args)...);
  CUDA_CHECK_LAUNCH();
}

// Shared memory of the patch-up kernel for target window l2 (bpmax_patch_up.cu); 0 when the window
// needs more threads than a block may have.
std::size_t patch_shared_bytes(int l2, int cell_bytes);
// Static shared memory of the patch-up kernel (its pair-weight table and window codes): a block's
// dynamic shared memory may not exceed the device's limit minus this.
std::size_t patch_static_bytes();

}  // namespace screen::kernels::bpmax::detail
