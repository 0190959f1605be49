// BPMax patch-up on the GPU: terms 4, 5 and 7 of one slab (i1, j1) (bpmax_launch.hpp's order: after
// the double reduction of its d1). Within the slab, with S2 fixed, the cells obey a Nussinov-like
// recurrence over target intervals (i, j):
//   F(i, j) = max(F(i, j),  F(i, k) + S2(k + 1, j),  S2(i, k) + F(k + 1, j)  for i <= k < j,
//                 w(z_i, z_j) + F(i + 1, j - 1)  when j - i > kMinLoop).
//
// One block owns kPatchT columns i (interval starts) and recomputes the window of the W = kPatchT + L2 - 1
// starts from its first column: every interval inside the window depends only on intervals inside it,
// so the block's own columns come out exact. (A neighbour block may already have written final values
// into the window's other columns; the recurrence is a monotone max, so reading a final value instead of
// the double-reduction value gives the same result.)
//
// The window's cells (i, j) are cut into 8 x 8 tiles (I, J) = (i / 8, j / 8); tile diagonal
// delta = J - I runs from 0 to D (cells of the band j - i < L2). One thread owns one tile and keeps its
// 64 cells in registers for the whole kernel. Stage s = 0 .. D:
//   1. the threads of the tiles on diagonal s finish them: the terms whose k lies inside the tile
//      itself (k in [8J, j) for term 4, k + 1 in (i, 8I + 8) for term 5) and term 7, in dependency order
//      (rows from the bottom; terms 5 and 7 for a whole row at once, term 4 pushed from each cell, left
//      to right, into the row), and store the final cells in shared memory;
//   2. barrier;
//   3. every tile further from the diagonal (delta > s) adds the two max-plus products that have just
//      become final: term 4 with k in tile column I + s (F(I, I + s) times S2 rows), term 5 with k + 1 in
//      tile row J - s (S2 columns times F(J - s, J)). Each is 8 steps of 8 x 8 fused add-max updates
//      (16-bit pairs with __viaddmax_s16x2, or 32-bit), the same micro-kernel as the double reduction.
// So the bulk of the work runs register-tiled, with one barrier per tile diagonal.
//
// Shared memory: F and S2 of the window, each stored by rows of interval starts: cell (i, j) at
// i * rl + j + 8 (rl = a multiple of 8, >= L2 + 8), so 8 cells of a row with j a multiple of 8 are one
// aligned 16-byte load. Everything starts as minus infinity (in particular the 8 diagonals below the
// band, which the tile products read for k < i); reads above the band only reach cells outside it.
#include "kernels/bpmax/bpmax_device.cuh"

namespace screen::kernels::bpmax {

using namespace detail;

namespace {

constexpr int kPatchT = 64;         // output columns (interval starts) per block
constexpr int kPatchThreads = 288;  // one thread per tile for windows up to L2 = 129 (272 tiles at 128)
constexpr int kPatchThreadsMax = 544;  // every window whose tables fit in shared memory (16-bit: L2 <= 201)

// Window geometry of one pair (target window l2).
struct PatchGeometry {
  int w = 0;      // window columns: interval starts and ends inside [0, w)
  int ni = 0;     // tile rows (and columns)
  int dmax = 0;   // largest tile diagonal holding band cells
  int rl = 0;     // shared-memory row length
  int cells = 0;  // cells of one shared-memory table
  __host__ __device__ explicit PatchGeometry(int l2) {
    w = kPatchT + l2 - 1;
    ni = (w + 7) / 8;
    dmax = (l2 + 6) / 8 < ni - 1 ? (l2 + 6) / 8 : ni - 1;
    rl = (l2 + 8 + 7) / 8 * 8;
    // Rows 0 .. 8 ni (term 4 reads S2 row k + 1 <= 8 ni), columns up to 8 ni + 7, plus slack; 16-byte multiple.
    cells = ((8 * ni) * rl + 8 * ni + 16 + 8 + 7) / 8 * 8;
  }
  __host__ __device__ int tiles() const { return (dmax + 1) * ni - dmax * (dmax + 1) / 2; }
  __host__ __device__ int at(int i, int j) const { return i * rl + j + 8; }
};

// Term 4 or 5 products of one stage into a tile's accumulators: acc(r, c) = max over kk of
// left(r, kk) + right(kk, c), left given as 8 rows of 8 values, right as 8 aligned 8-cell rows.
template <class Cell>
__device__ __forceinline__ void tile_product(typename Cells<Cell>::Eight (&acc)[8],
                                             const typename Cells<Cell>::Eight (&left)[8], const Cell* right,
                                             int right_stride) {
  using C = Cells<Cell>;
#pragma unroll
  for (int kk = 0; kk < 8; ++kk) {
    const typename C::Eight bv = C::load8(right + kk * right_stride);
#pragma unroll
    for (int r = 0; r < 8; ++r) add_row<Cell>(acc[r], C::splat(left[r], kk), bv);
  }
}

template <class Cell, int kThreads, int kMinBlocks>
__global__ void __launch_bounds__(kThreads, kMinBlocks) patch_up_kernel(BatchView b, int d1, const std::int64_t* prefix) {
  using C = Cells<Cell>;
  using Eight = typename C::Eight;
  extern __shared__ __align__(16) unsigned char smem[];
  const SlabTile st = slab_tile(b, prefix, kPatchT);
  const PairDesc& pd = st.pd;
  const int i0 = st.i0, l2 = pd.l2, m = pd.m, stride = pd.stride;
  const PatchGeometry g(l2);
  Cell* const f = reinterpret_cast<Cell*>(smem);
  Cell* const s = f + g.cells;
  Cell* const slab = slab_ptr(static_cast<Cell*>(b.f), pd, st.i1, d1);
  const Cell* const gs2 = static_cast<const Cell*>(b.s) + pd.s2;
  const std::uint8_t* const z = b.codes + pd.z;
  const int tid = threadIdx.x;
  __shared__ std::int16_t table[seq::kAlphabetSize * seq::kAlphabetSize];
  for (int e = tid; e < seq::kAlphabetSize * seq::kAlphabetSize; e += kThreads) table[e] = b.table.w[e];

  // Both tables minus infinity, then the window's band cells (inside the target and the window), read
  // as 8-cell row pieces with 16-byte loads.
  {
    const Eight negs = C::fill8(C::kNeg);
    for (int e = tid; e < 2 * g.cells / 8; e += kThreads) C::store8(f + 8 * e, negs);
  }
  __syncthreads();
  {
    constexpr int kInFlight = 4;  // 16-byte loads in flight per thread
    const int pieces = (g.w + 7) / 8, items = 2 * l2 * pieces;
    for (int e0 = tid; e0 < items; e0 += kThreads * kInFlight) {
      Row8<Cell> piece[kInFlight];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        const int e = e0 + u * kThreads;
        const bool is_s = e >= l2 * pieces;
        const int r = is_s ? e - l2 * pieces : e, d = r / pieces, c0 = (r % pieces) * 8;
        if (e < items && i0 + c0 + d < m && i0 + c0 < stride)
          piece[u] = load_row8((is_s ? gs2 : slab) + static_cast<std::int64_t>(d) * stride + i0 + c0);
      }
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        const int e = e0 + u * kThreads;
        const bool is_s = e >= l2 * pieces;
        const int r = is_s ? e - l2 * pieces : e, d = r / pieces, c0 = (r % pieces) * 8;
        if (e >= items || i0 + c0 + d >= m || i0 + c0 >= stride) continue;
        Cell* const t = is_s ? s : f;
#pragma unroll
        for (int k = 0; k < 8; ++k) {
          const int c = c0 + k;
          if (i0 + c + d < m && c + d < g.w) t[g.at(c, c + d)] = piece[u].v[k];
        }
      }
    }
  }

  // This thread's tile: thread t is the t-th tile counting diagonal by diagonal.
  int ti = tid, delta = 0;
  while (delta <= g.dmax && ti >= g.ni - delta) ti -= g.ni - delta++;
  const bool active = delta <= g.dmax;
  const int tj = ti + delta, ib = 8 * ti, jb = 8 * tj;
  // Cell (r, c) of the tile is (ib + r, jb + c); it is a band cell of the window inside the target when
  // valid(r, c).
  auto valid = [&](int i, int j) { return j >= i && j - i < l2 && j < g.w && i0 + j < m; };
  Eight acc[8];
  __syncthreads();
  if (active) {
#pragma unroll
    for (int r = 0; r < 8; ++r) acc[r] = C::load8(f + g.at(ib + r, jb));
  }

  for (int stage = 0; stage <= g.dmax; ++stage) {
    if (active && delta == stage) {
      // Finish the tile, row after row from the bottom. Row r first takes, for all its cells at once,
      // the in-tile term 5 (rows below: S2(i, k) + F(k + 1, j)) and term 7 (w(z_i, z_j) + the row below
      // shifted by one cell); then its cells are final from left to right, each pushing the in-tile
      // term 4 (F(i, k) + S2(k + 1, j), k its column) into the whole row (S2 is minus infinity below its
      // band, so the push leaves the cells to its left unchanged).
      const bool full = delta >= 1 && jb + 7 - ib < l2 && jb + 7 < g.w && i0 + jb + 7 < m;  // all cells valid
      // S2(k + 1, j) of the in-tile term 4, k = jb + c: row jb + c + 1, columns jb .. jb + 7 (read where
      // used: holding all seven in registers made the kernel spill in its product loop).
      int zj[8];  // codes of the tile's columns (0 beyond the target)
#pragma unroll
      for (int c = 0; c < 8; ++c) zj[c] = i0 + jb + c < m ? z[i0 + jb + c] : 0;
#pragma unroll
      for (int r = 7; r >= 0; --r) {
        const int i = ib + r;
        const Eight s5 = C::load8(s + g.at(i, ib));  // S2(i, k), k = ib .. ib + 7
#pragma unroll
        for (int r2 = r + 1; r2 < 8; ++r2) add_row<Cell>(acc[r], C::splat(s5, r2 - 1), acc[r2]);  // term 5, k + 1 = ib + r2
        {  // term 7: F(i + 1, j - 1) is the row below shifted right by one cell
          const Eight below = C::shift_in(C::load8(f + g.at(i + 1, jb - 8)), r < 7 ? acc[r < 7 ? r + 1 : 7]
                                                                                   : C::load8(f + g.at(i + 1, jb)));
          const int zrow = (i0 + i < m ? z[i0 + i] : 0) * seq::kAlphabetSize;
          Eight wv;
#pragma unroll
          for (int c = 0; c < 8; ++c) C::set(wv, c, jb + c - i > kMinLoop ? static_cast<int>(table[zrow + zj[c]]) : C::kNeg);
#pragma unroll
          for (int w = 0; w < C::kWords; ++w)
            C::set_word(acc[r], w, C::addmax(C::word(wv, w), C::word(below, w), C::word(acc[r], w)));
        }
#pragma unroll
        for (int c = 0; c < 8; ++c) {  // final from the left; term 4 pushes
          if (!full && !valid(i, jb + c)) C::set(acc[r], c, C::kNeg);
          if (c < 7) add_row<Cell>(acc[r], C::splat_value(C::get(acc[r], c)), C::load8(s + g.at(jb + c + 1, jb)));
        }
        if (full) {
          C::store8(f + g.at(i, jb), acc[r]);
        } else {
#pragma unroll
          for (int c = 0; c < 8; ++c)
            if (valid(i, jb + c)) f[g.at(i, jb + c)] = static_cast<Cell>(C::get(acc[r], c));
        }
      }
    }
    __syncthreads();
    if (active && delta > stage) {
      Eight left[8];
      // Term 4: k in tile column K = I + stage, F(i, k) (rows of this tile) times S2(k + 1, j).
      const int kb4 = 8 * (ti + stage);
#pragma unroll
      for (int r = 0; r < 8; ++r) left[r] = C::load8(f + g.at(ib + r, kb4));
      tile_product<Cell>(acc, left, s + g.at(kb4 + 1, jb), g.rl);
      // Term 5: k + 1 in tile row K' = J - stage, S2(i, k) (the row of eight one cell earlier) times
      // F(k + 1, j).
      const int kb5 = 8 * (tj - stage);
#pragma unroll
      for (int r = 0; r < 8; ++r)
        left[r] = C::shift_in(C::load8(s + g.at(ib + r, kb5 - 8)), C::load8(s + g.at(ib + r, kb5)));
      tile_product<Cell>(acc, left, f + g.at(kb5, jb), g.rl);
    }
  }
  // The last stage's barrier has passed: write this block's own columns (rows d >= 1 change), 8 cells
  // of a row per 16-byte store.
  for (int e = tid; e < (l2 - 1) * (kPatchT / 8); e += kThreads) {
    const int d = 1 + e / (kPatchT / 8), c0 = (e % (kPatchT / 8)) * 8;
    if (i0 + c0 >= stride) continue;
    Row8<Cell> piece;
#pragma unroll
    for (int k = 0; k < 8; ++k) piece.v[k] = f[g.at(c0 + k, c0 + k + d)];
    Cell* const out = slab + static_cast<std::int64_t>(d) * stride + i0 + c0;
    if (i0 + c0 + 7 + d < m) {
      store_row8(out, piece);
    } else {
#pragma unroll
      for (int k = 0; k < 8; ++k)
        if (i0 + c0 + k + d < m) out[k] = piece.v[k];
    }
  }
}

// One thread per tile, and 8 per tile of the longest diagonal.
int patch_threads(int l2) {
  const PatchGeometry g(l2);
  const int t = g.tiles() > 8 * g.ni ? g.tiles() : 8 * g.ni;
  return (t + 31) / 32 * 32;
}

}  // namespace

namespace detail {
std::size_t patch_shared_bytes(int l2, int cell_bytes) {
  if (patch_threads(l2) > kPatchThreadsMax) return 0;
  return 2 * static_cast<std::size_t>(PatchGeometry(l2).cells) * static_cast<std::size_t>(cell_bytes);
}
}  // namespace detail

int patch_tile_width() { return kPatchT; }

void launch_patch_up(const BatchView& b, int d1, const std::int64_t* prefix, std::int64_t items, void* stream) {
  if (items == 0) return;
  const int threads = patch_threads(b.max_l2);
  by_cell(b.wide, [&](auto cell) {
    using Cell = decltype(cell);
    const std::size_t bytes = patch_shared_bytes(b.max_l2, sizeof(Cell));
    // Two blocks per SM for 16-bit cells (96 registers, a few spilled: 0.038 s against 0.055 s with one
    // block per SM and no spills, patch-up of 23 x 20,000 at W2 = 128 on an H200).
    if (threads <= kPatchThreads)
      launch(patch_up_kernel<Cell, kPatchThreads, sizeof(Cell) == 2 ? 2 : 1>, items, kPatchThreads, bytes, stream, b,
             d1, prefix);
    else
      launch(patch_up_kernel<Cell, kPatchThreadsMax, 1>, items, kPatchThreadsMax, bytes, stream, b, d1, prefix);
  });
}

}  // namespace screen::kernels::bpmax
