// BPMax patch-up on the GPU: terms 4, 5 and 7 of one slab (i1, j1) (bpmax_launch.hpp's order: after
// the double reduction of its d1). Within the slab, with S2 fixed, the cells obey a Nussinov-like
// recurrence over target intervals (i, j):
//   F(i, j) = max(F(i, j),  F(i, k) + S2(k + 1, j),  S2(i, k) + F(k + 1, j)  for i <= k < j,
//                 w(z_i, z_j) + F(i + 1, j - 1)  when j - i > kMinLoop).
//
// One block owns T columns i (interval starts; T = kPatchT, or kWidePatchT for 16-bit windows up to 128,
// or kPatchT32 where neither fits a block's shared memory, see there) and recomputes a window of starts and ends from its first column, at least T + L2 - 1 wide (whole tiles: 8 ni columns): every interval inside the
// window depends only on intervals inside it, so the block's own columns come out exact. (A neighbour block may already have written final values
// into the window's other columns; the recurrence is a monotone max, so reading a final value instead of
// the double-reduction value gives the same result.)
//
// The window's cells (i, j) are cut into 8 x 8 tiles (I, J) = (i / 8, j / 8); tile diagonal
// delta = J - I runs from 0 to D (cells of the band j - i < L2). A tile on diagonal delta is final once
// it has the max-plus products of stages 0 .. delta - 1 (stage s: term 4 with k in tile column I + s,
// F(I, I + s) times S2 rows, and term 5 with k + 1 in tile row J - s, S2 columns times F(J - s, J); each
// 8 steps of 8 x 8 fused add-max updates, 16-bit pairs with __viaddmax_s16x2 or 32-bit) and then its
// finish: the terms whose k lies inside the tile itself (k in [8J, j) for term 4, k + 1 in (i, 8I + 8)
// for term 5) and term 7, in dependency order (finish_tile).
//
// The block has two kinds of threads, so that the chain of finishes, the kernel's critical path, runs
// beside the bulk of the products instead of between them:
//   - finishers (the first warps, four lanes per tile column I): at stage s, group I finishes tile
//     (I, I + s) and then computes that tile's successor's stage-s products, tile (I, I + s + 1) (its
//     two operands are the tiles just finished by groups I and I + 1; lane w takes rows 2 w, 2 w + 1),
//     which it merges in before finishing it at stage s + 1;
//   - owners (one thread per tile on diagonals 2 .. D): a tile's owner keeps its 64 cells in registers
//     and adds the products of stages 0 .. delta - 2, stage s - 1 while the finishers are at stage s,
//     then hands the tile over through shared memory.
// One block barrier per stage separates what one stage writes from what the next reads (F's finished
// tiles and the splatted left operands of term 4, double-buffered by stage parity); a named barrier among
// the finishers lets group I read group I + 1's tile. (Session 12 overlapped only the finish with the
// products of tiles further out; the diagonal's own products stayed with the owners, on the critical path.)
// Shared memory: F and S2 of the window, each stored by rows of interval starts: cell (i, j) at
// i * rl + j + 8 (rl = a multiple of 8, >= L2 + 8; one constant for launches whose windows are all at
// most 128), so 8 cells of a row with j a multiple of 8 are one aligned 16-byte load, and both windows
// arrive as cp.async copies of their rows' chunks (F's slab and S2, bpmax_launch.hpp); then the tile
// columns' closures P and term-7 weights, and term 4's splatted left operands (two stages' worth).
// Everything starts as minus infinity (in particular the 8 diagonals below the
// band, which the tile products read for k < i); reads above the band only reach cells outside it.
#include <type_traits>

#include "kernels/bpmax/bpmax_device.cuh"

namespace screen::kernels::bpmax {

using namespace detail;

namespace {

constexpr int kPatchT = 64;         // output columns (interval starts) per block
constexpr int kPatchThreads = 352;  // finishers and owners (patch_threads) for windows up to L2 = 129
// The wide form for 16-bit launches whose windows are at most kFixedRowL2 (the thesis's W2 = 128), where
// its tables fit in shared memory: 192 columns a block, one block of 640 threads (160 finishers, 480
// owners of the 465 tiles past the second diagonal at L2 = 128) per SM. Each stage's finish is a chain of
// dependent steps whatever the block's width, so a wider block
// gets more columns out of each chain, and recomputes fewer columns beyond its own (a window of 320 for
// 192 columns instead of 192 for 64). Patch-up of 23 x 20,000 at W2 = 128 on an H100 (one thread per tile
// then, finishing between the products): 0.0185 s (64 columns, two blocks per SM) -> 0.0163 s (128) ->
// 0.0133 s (192) -> 0.0132 s (256, 704 threads, spills); the 1,000-record screen slice 25.0 -> 21.9 s
// (192) against 23.6 s (128). With finishers and owners (bbc1d2f): 0.0120 -> 0.0105 s.
constexpr int kWidePatchT = 192;
constexpr int kWidePatchThreads = 640;
// The 32-column form, for GPUs with 99 KB a block, where even the 64-column form's tables (121 KB at
// W2 = 128) do not fit: the row length of each pair's window and no splat buffer (92 KB at W2 = 128 in
// 16-bit cells), for windows whose finishers and owners fit kPatchThreads. It also takes 32-bit windows
// of 129 to 144 nt on an H100 (189 KB at 129), which have no 64-column form that fits.
constexpr int kPatchT32 = 32;
constexpr int kPatchThreadsMax = 640;  // every window patch_fits (16-bit: L2 <= 200 at 64 columns)
// Windows a block takes: at most this many tiles (and window codes, below), as when one thread owned each.
constexpr int kMaxPatchTiles = 544;
constexpr int kClosureCells = 7 * 8;  // closure of one tile column's in-tile term 4 (rows 0 .. 6)
constexpr int kMaxWindowCodes = 512;  // target codes of a window (8 ni); larger windows are not for the GPU
// Term 4's left operands of one stage (the tiles the finishers have just made final), as product words:
// tile slot ti (its tile row), column kk, row r at word ti * kSplatSlot + 8 kk + r. A slot is 64 words
// plus 4 of padding, so that the 16-byte loads of consecutive slots fall on distinct bank groups.
constexpr int kSplatSlot = 68;

// Window geometry of one pair (target window l2).
struct PatchGeometry {
  int w = 0;      // window columns: interval starts and ends inside [0, w)
  int ni = 0;     // tile rows (and columns)
  int dmax = 0;   // largest tile diagonal holding band cells
  int rl = 0;     // shared-memory row length
  int cells = 0;  // cells of one shared-memory table
  // fixed_rl: a row length for every window of the launch (a constant in the kernel), or 0.
  __host__ __device__ constexpr explicit PatchGeometry(int l2, int fixed_rl = 0, int pt = kPatchT) {
    // Every interval inside a window of starts and ends depends only on intervals inside it, so any
    // window from the block's first column that holds its columns' band (kPatchT + L2 - 1 columns) will
    // do; whole tiles (8 ni columns) leave no partial tile column at its end.
    ni = (pt + l2 - 1 + 7) / 8;
    w = 8 * ni;
    dmax = (l2 + 6) / 8 < ni - 1 ? (l2 + 6) / 8 : ni - 1;
    rl = fixed_rl > 0 ? fixed_rl : (l2 + 8 + 7) / 8 * 8;
    // Rows 0 .. 8 ni (term 4 reads S2 row k + 1 <= 8 ni), columns up to 8 ni + 7, plus slack; 16-byte multiple.
    cells = ((8 * ni) * rl + 8 * ni + 16 + 8 + 7) / 8 * 8;
  }
  __host__ __device__ constexpr int tiles() const { return (dmax + 1) * ni - dmax * (dmax + 1) / 2; }
  __host__ __device__ constexpr int at(int i, int j) const { return i * rl + j + 8; }
  // Finisher threads (four lanes per tile column, whole warps) and owned tiles (diagonals 2 .. dmax).
  __host__ __device__ constexpr int finishers() const { return (4 * ni + 31) / 32 * 32; }
  __host__ __device__ constexpr int owned_tiles() const { return dmax >= 1 ? tiles() - (2 * ni - 1) : 0; }
  __host__ __device__ constexpr int threads() const { return finishers() + (owned_tiles() + 31) / 32 * 32; }
};

// Whether a window's tiles fit one block (the GPU takes the pair), and whether a launch's blocks keep
// term 4's splatted operands (16-bit cells and one row length for all its windows; a 32-bit cell is its
// own word, read from F, and wider windows need all the shared memory for their tables).
constexpr bool window_fits(const PatchGeometry& g) { return g.tiles() <= kMaxPatchTiles && 8 * g.ni <= kMaxWindowCodes; }
constexpr bool has_splat_buffer(bool fixed_row, int cell_bytes) { return fixed_row && cell_bytes == 2; }

// Term 4 or 5 products of one stage into kRows rows of a tile's accumulators (all 8, or a finisher lane's
// two): acc(r, c) = max over kk of left(r, kk) + right(kk, c), right given as 8 aligned 8-cell rows and
// left by `left_word(r, kk)`, the value in both halves of a word (16-bit) or a cell (32-bit).
template <class Cell, int kRows, class LeftWord>
__device__ __forceinline__ void tile_product(typename Cells<Cell>::Eight (&acc)[kRows], LeftWord left_word, const Cell* right,
                                             int right_stride) {
  using C = Cells<Cell>;
#pragma unroll
  for (int kk = 0; kk < 8; ++kk) {
    const typename C::Eight bv = C::load8(right + kk * right_stride);
#pragma unroll
    for (int r = 0; r < kRows; ++r) add_row<Cell>(acc[r], left_word(r, kk), bv);
  }
}

// Two neighbouring cells (2 w, 2 w + 1) of a tile row: the share of lane w of the four that finish a tile.
template <class Cell>
struct CellPair;
template <>
struct CellPair<std::int16_t> {
  using C = Cells<std::int16_t>;
  using P = unsigned;  // the two cells in one word
  __device__ static P load(const std::int16_t* p) { return *reinterpret_cast<const unsigned*>(p); }
  __device__ static void store(std::int16_t* p, P v) { *reinterpret_cast<unsigned*>(p) = v; }
  __device__ static P splat(int v) { return C::pack(v, v); }
  __device__ static P splat_half(P v, int half) { return __byte_perm(v, 0, half ? 0x3232 : 0x1010); }
  // Cell `half` of the pair as a product operand word (C::Word: both halves).
  __device__ static C::Word word_of(P v, int half) { return splat_half(v, half); }
  __device__ static P splat_cell(const C::Eight& e, int c) { return C::splat(e, c); }
  __device__ static P addmax(P a, P b, P c) { return __viaddmax_s16x2(a, b, c); }
  __device__ static P max(P a, P b) { return __vmaxs2(a, b); }
  __device__ static P shift(P prev, P cur) { return __byte_perm(prev, cur, 0x5432); }  // (prev cell 1, cur cell 0)
  __device__ static P shfl(unsigned lanes, P v, int src) { return __shfl_sync(lanes, v, src, 4); }
  // Cells h (0, 1) with lo <= h <= hi kept, minus infinity elsewhere.
  __device__ static P keep(P v, int lo, int hi) {
    const unsigned m = (lo <= 0 && hi >= 0 ? 0xffffu : 0u) | (lo <= 1 && hi >= 1 ? 0xffff0000u : 0u);
    return (v & m) | (splat(C::kNeg) & ~m);
  }
};
template <>
struct CellPair<std::int32_t> {
  using C = Cells<std::int32_t>;
  using P = int2;
  __device__ static P load(const std::int32_t* p) { return *reinterpret_cast<const int2*>(p); }
  __device__ static void store(std::int32_t* p, P v) { *reinterpret_cast<int2*>(p) = v; }
  __device__ static P splat(int v) { return make_int2(v, v); }
  __device__ static P splat_half(P v, int half) { return splat(half ? v.y : v.x); }
  __device__ static C::Word word_of(P v, int half) { return half ? v.y : v.x; }
  __device__ static P splat_cell(const C::Eight& e, int c) { return splat(C::get(e, c)); }
  __device__ static P addmax(P a, P b, P c) {
    return make_int2(__viaddmax_s32(a.x, b.x, c.x), __viaddmax_s32(a.y, b.y, c.y));
  }
  __device__ static P max(P a, P b) { return make_int2(a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y); }
  __device__ static P shift(P prev, P cur) { return make_int2(prev.y, cur.x); }
  __device__ static P shfl(unsigned lanes, P v, int src) {
    return make_int2(__shfl_sync(lanes, v.x, src, 4), __shfl_sync(lanes, v.y, src, 4));
  }
  __device__ static P keep(P v, int lo, int hi) {
    return make_int2(lo <= 0 && hi >= 0 ? v.x : C::kNeg, lo <= 1 && hi >= 1 ? v.y : C::kNeg);
  }
};

// Finishes tile (ti, tj) of the window (the terms whose k lies inside the tile, and term 7; the file
// comment's step 1) with four lanes: lane w holds cells 2 w and 2 w + 1 of each of the 8 rows, from
// shared memory, and stores them back final. Rows from the bottom: term 5 from the rows below (lane-local),
// term 7 from the row below shifted right by one cell (the cell left of this lane's pair comes from lane
// w - 1, or for lane 0 from the tile to the left), then the in-tile term 4 as the max-plus product of the
// row (G, gathered from the four lanes) with the tile column's closure P. Each lane's share of this chain,
// the kernel's critical path while the other warps wait, is a quarter of the tile's cells (patch-up
// 0.0206 -> 0.0185 s at 23 x 20,000 against one thread per tile). lanes: the warp's lanes that run this
// (whole groups of four); hi: the last column
// (from the window's first) inside the window and the target.
template <class Cell>
__device__ __forceinline__ void finish_tile(Cell* f, typename Cells<Cell>::Word* splat, const Cell* s, const Cell* pj,
                                            const Cell* wtab, const std::uint8_t* zs,
                                            const PatchGeometry& g, int ti, int tj, int w, unsigned lanes, int l2,
                                            int hi) {
  using C = Cells<Cell>;
  using Q = CellPair<Cell>;
  using P = typename Q::P;
  const int ib = 8 * ti, jb = 8 * tj, c0 = 2 * w, last = hi - jb;
  P x[8], clo[7];
#pragma unroll
  for (int r = 0; r < 8; ++r) x[r] = Q::load(f + g.at(ib + r, jb) + c0);
#pragma unroll
  for (int k = 0; k < 7; ++k) clo[k] = Q::load(pj + tj * kClosureCells + 8 * k + c0);
  const Cell* const weights = wtab + tj * seq::kAlphabetSize * 8 + c0;  // [z_i][c]
  // The masks (term 7's j - i > kMinLoop, and the cells outside the band, the window or the target) keep
  // every cell of most tiles: those are finished without them when the whole warp's tiles are.
  const int delta = tj - ti;
  const bool plain = 8 * delta >= 8 + kMinLoop && 8 * delta <= l2 - 8 && last >= 7;
  auto finish = [&](auto masked) {
#pragma unroll
    for (int r = 7; r >= 0; --r) {
      const int i = ib + r, lo = i - jb - c0, up = imin(i + l2 - 1 - jb, last) - c0;  // lo, up: from c0
      const typename C::Eight s5 = C::load8(s + g.at(i, ib));  // S2(i, k), k = ib .. ib + 7
#pragma unroll
      for (int r2 = 7; r2 > r; --r2) x[r] = Q::addmax(Q::splat_cell(s5, r2 - 1), x[r2], x[r]);  // term 5
      // Term 7: w(z_i, z_j) (where j - i > kMinLoop) + F(i + 1, j - 1).
      const P cur = r < 7 ? x[r < 7 ? r + 1 : 7] : Q::load(f + g.at(i + 1, jb) + c0);
      P prev = Q::shfl(lanes, cur, (w + 3) & 3);
      if (w == 0) prev = Q::splat(f[g.at(i + 1, jb - 1)]);
      P wv = Q::load(weights + zs[i] * 8);
      if constexpr (decltype(masked)::value) wv = Q::keep(wv, lo + kMinLoop + 1, 1);
      x[r] = Q::addmax(wv, Q::shift(prev, cur), x[r]);
      // In-tile term 4: F(i, j) = max over k in [jb, j] of G(i, k) + P(k, j), P(j, j) = 0.
      P g4 = x[r];
      if constexpr (decltype(masked)::value) g4 = Q::keep(g4, lo, up);
      P row[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) row[q] = Q::shfl(lanes, g4, q);
      P even = g4, odd = Q::splat(C::kNeg);
#pragma unroll
      for (int k = 0; k < 7; ++k) {
        P& chain = k & 1 ? odd : even;
        chain = Q::addmax(Q::splat_half(row[k >> 1], k & 1), clo[k], chain);
      }
      x[r] = Q::max(even, odd);
      if constexpr (decltype(masked)::value) x[r] = Q::keep(x[r], lo, up);
    }
  };
  if (__any_sync(lanes, !plain))
    finish(std::true_type{});
  else
    finish(std::false_type{});
#pragma unroll
  for (int r = 0; r < 8; ++r) Q::store(f + g.at(ib + r, jb) + c0, x[r]);
  // The tile as term 4's left operand of this stage's products (columns c0 and c0 + 1, all 8 rows),
  // splatted once here instead of by each of the tiles to its right (launches with a splat buffer).
  using Word = typename C::Word;
  if (splat == nullptr) return;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    Word* const to = splat + ti * kSplatSlot + 8 * (c0 + h);
#pragma unroll
    for (int r = 0; r < 8; ++r) to[r] = Q::word_of(x[r], h);
  }
}

// The stage-`stage` products of tile (ti, ti + stage + 1) (the successor of the tile group ti has just
// finished), rows 2 w and 2 w + 1 (lane w of the group's four), from minus infinity: term 4 with F(i, k)
// from tile (ti, ti + stage) and term 5 with F(k + 1, j) from tile (ti + 1, ti + stage + 1), both final in
// f. The same updates as an owner's stage (the file comment), split by rows instead.
template <class Cell>
__device__ __forceinline__ void successor_products(typename Cells<Cell>::Eight (&out)[2], const Cell* f, const Cell* s,
                                                   const PatchGeometry& g, int ti, int stage, int w) {
  using C = Cells<Cell>;
  using Eight = typename C::Eight;
  const int jb = 8 * (ti + stage + 1), kb4 = 8 * (ti + stage), kb5 = 8 * (ti + 1);
  using Word = typename C::Word;
  Eight left[2], s5[2];
  Word before[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int i = 8 * ti + 2 * w + h;
    left[h] = C::load8(f + g.at(i, kb4));
    before[h] = C::splat_at(s + g.at(i, kb5 - 8), 7);
    s5[h] = C::load8(s + g.at(i, kb5));
    out[h] = C::fill8(C::kNeg);
  }
  tile_product<Cell, 2>(out, [&](int h, int kk) { return C::splat(left[h], kk); }, s + g.at(kb4 + 1, jb), g.rl);
  tile_product<Cell, 2>(out, [&](int h, int kk) { return kk == 0 ? before[h] : C::splat(s5[h], kk - 1); },
                        f + g.at(kb5, jb), g.rl);
}

// Runs f(c, q) for the chunks q < nq of rows c < rows, dealt to the block's threads by fixed chunk
// columns: thread t takes column t % nq of rows t / nq, t / nq + kThreads / nq, ... (threads past the last
// whole group of nq columns idle), so that consecutive threads take consecutive chunks of a row and no
// item is decoded by a division (the window's loads took 4.5% of the patch-up's samples that way).
template <int kThreads, class F>
__device__ __forceinline__ void for_row_chunks(int rows, int nq, F f) {
  const int per = kThreads / nq, t = static_cast<int>(threadIdx.x);
  if (t >= per * nq) return;
  for (int c = t / nq, q = t % nq; c < rows; c += per) f(c, q);
}

// One block an SM: at the windows the forms are for (128 and 129) their tables take more than half an
// SM's shared memory (launch_patch_up).
template <class Cell, int kThreads, int kRowLength, int kPT = kPatchT>
__global__ void __launch_bounds__(kThreads, 1) patch_up_kernel(BatchView b, int d1, const std::int64_t* prefix) {
  using C = Cells<Cell>;
  using Eight = typename C::Eight;
  extern __shared__ __align__(16) unsigned char smem[];
  const SlabTile st = slab_tile(b, prefix, kPT);
  const PairDesc& pd = st.pd;
  const int i0 = st.i0, l2 = pd.l2, m = pd.m;
  const PatchGeometry g(l2, kRowLength, kPT);
  Cell* const f = reinterpret_cast<Cell*>(smem);
  Cell* const s = f + g.cells;
  Cell* const pj = s + g.cells;  // closures of the tile columns, kClosureCells each
  Cell* const wtab = pj + g.ni * kClosureCells;  // term-7 weights of the tile columns: [J][z_i][c]
  using Word = typename C::Word;
  // Term 4's splatted left operands (kSplatSlot words a tile row), in 16-bit launches of windows up to
  // kFixedRowL2 (a row length kRowLength for all); wider windows need all the shared memory for their
  // tables. Two buffers: stage s's finishers write buffer s % 2 while the owners read stage s - 1's.
  constexpr bool kSplat = has_splat_buffer(kRowLength > 0, sizeof(Cell));
  Word* const splat = kSplat ? reinterpret_cast<Word*>(wtab + g.ni * seq::kAlphabetSize * 8) : nullptr;
  Cell* const slab = slab_ptr(static_cast<Cell*>(b.f), pd, st.i1, d1);
  const Cell* const gs2 = static_cast<const Cell*>(b.s) + pd.s2;
  const std::uint8_t* const z = b.codes + pd.z;
  const int tid = threadIdx.x;
  __shared__ std::int16_t table[seq::kAlphabetSize * seq::kAlphabetSize];
  __shared__ __align__(8) std::uint8_t zs[kMaxWindowCodes];
  for (int e = tid; e < seq::kAlphabetSize * seq::kAlphabetSize; e += kThreads) table[e] = b.table.w[e];

  // The window's cells: F as whole chunks of the slab's rows, copied
  // unchanged (cp.async; bpmax_launch.hpp: chunk q of row i0 + c holds the ends row_first(c) + 8 q + k,
  // minus infinity outside the band and the target, so the copy lands at g.at(c, row_first(c) + 8 q)),
  // and S2 the same way from its rows, which have the slabs' layout.
  // Minus infinity goes only where no copy lands (each row's cells between its last copied chunk and the
  // next row's first, the cells before row 0's, and all from the first row past the window or the target
  // on): the copies and these stores write disjoint cells, so no barrier separates them. (Filling both
  // tables whole first took about 20 16-byte stores a thread, 174 KB a block at W2 = 128.)
  {
    const int nq = row_chunks(pd), rows = imin(g.w, m - i0);
    const Eight negs = C::fill8(C::kNeg);
    auto first_copied = [&](int c) { return g.at(c, row_first(c)); };
    auto neg8 = [&](int e) {
      C::store8(f + e, negs);
      C::store8(s + e, negs);
    };
    for (int c = tid; c < rows; c += kThreads)
      for (int e = first_copied(c) + 8 * nq; e < first_copied(c + 1); e += 8) neg8(e);
    for (int e = 8 * tid; e < first_copied(0); e += 8 * kThreads) neg8(e);
    for (int e = first_copied(rows) + 8 * tid; e < g.cells; e += 8 * kThreads) neg8(e);
    for_row_chunks<kThreads>(rows, nq, [&](int c, int q) {
      const int at = g.at(c, row_first(c) + 8 * q);
      copy_chunk_async(f + at, slab_row(slab, pd, i0 + c) + 8 * q);
      copy_chunk_async(s + at, slab_row(gs2, pd, i0 + c) + 8 * q);
    });
  }
  wait_async_copies();

  // The target's codes over the window (0 beyond the target), for term 7.
  for (int c = tid; c < 8 * g.ni; c += kThreads) zs[c] = i0 + c < m ? z[i0 + c] : 0;
  __syncthreads();
  // The closure of every tile column's in-tile term-4 steps: P(k, c) (row k = 0 .. 6, cell c) is the best
  // chain k = k_0 < k_1 < ... < k_n = c of S2(k_t + 1, k_{t+1}) (columns from the tile column's first),
  // minus infinity for c <= k (P(k, k) = 0 is applied as the identity).
  for (int e = tid; e < g.ni * 7; e += kThreads) {
    const int k = e % 7, jb = 8 * (e / 7);
    int best[8];
    Row8<Cell> out;
#pragma unroll
    for (int c = 0; c < 8; ++c) {
      int v = c == k ? 0 : C::kNeg;
#pragma unroll
      for (int c2 = 0; c2 < c; ++c2)
        if (c2 >= k) v = imax(v, best[c2] + static_cast<int>(s[g.at(jb + c2 + 1, jb + c)]));
      best[c] = v;
      out.v[c] = static_cast<Cell>(c > k ? v : C::kNeg);
    }
    store_row8(pj + (e / 7) * kClosureCells + 8 * k, out);
  }
  // The term-7 weights w(a, z_j) of every tile column for every code a of z_i.
  for (int e = tid; e < g.ni * seq::kAlphabetSize; e += kThreads) {
    const int a = e % seq::kAlphabetSize, jb = 8 * (e / seq::kAlphabetSize);
    Row8<Cell> out;
#pragma unroll
    for (int c = 0; c < 8; ++c) out.v[c] = static_cast<Cell>(table[a * seq::kAlphabetSize + zs[jb + c]]);
    store_row8(wtab + 8 * e, out);
  }

  __syncthreads();
  const int nf = g.finishers(), hi = imin(g.w - 1, m - 1 - i0);
  const int splat_stage = g.ni * kSplatSlot;  // words of one stage's splat buffer
  if (tid < nf) {
    // Finisher: group ti (four lanes) finishes tile (ti, ti + stage) at each stage, after merging in the
    // products of the stage before (`next`, rows 2 lane and 2 lane + 1), which it computed itself.
    const int ti = tid >> 2, lane = tid & 3;
    Eight next[2];
    for (int stage = 0; stage <= g.dmax; ++stage) {
      Word* const splat_now = kSplat ? splat + (stage & 1) * splat_stage : nullptr;
      const int count = g.ni - stage;
      const unsigned lanes = __ballot_sync(0xffffffffu, ti < count);
      if (ti < count) {
        if (stage > 0) {
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            Cell* const row = f + g.at(8 * ti + 2 * lane + h, 8 * (ti + stage));
            C::store8(row, max8<Cell>(C::load8(row), next[h]));
          }
          __syncwarp(lanes);
        }
        finish_tile<Cell>(f, splat_now, s, pj, wtab, zs, g, ti, ti + stage, lane, lanes, l2, hi);
      }
      named_barrier(1, nf);  // this stage's tiles are final in f (group ti + 1's is read next)
      if (ti < count - 1 && stage < g.dmax) successor_products<Cell>(next, f, s, g, ti, stage, lane);
      named_barrier(0, kThreads);
    }
  } else {
    // Owner: the (tid - nf)-th tile past the second diagonal, counting diagonal by diagonal. While the
    // finishers are at stage s, it adds the products of stage s - 1; the last it adds is stage delta - 2
    // (the finishers add stage delta - 1), after which it hands the tile over.
    int ti = tid - nf, delta = 2;
    while (delta <= g.dmax && ti >= g.ni - delta) ti -= g.ni - delta++;
    const bool owner = delta <= g.dmax;
    const int tj = ti + delta, ib = 8 * ti, jb = 8 * tj;
    Eight acc[8];
    if (owner) {
#pragma unroll
      for (int r = 0; r < 8; ++r) acc[r] = C::load8(f + g.at(ib + r, jb));
    }
    for (int stage = 0; stage <= g.dmax; ++stage) {
      const int t = stage - 1;  // the stage whose products this thread adds now
      if (owner && t >= 0 && t <= delta - 2) {
        // Term 4: k in tile column K = I + t, F(i, k) (rows of this tile) times S2(k + 1, j); F(i, k) from
        // the words the finishers of stage t wrote (tile (I, K) is in slot I of buffer t % 2).
        const int kb4 = 8 * (ti + t);
        if constexpr (kSplat) {
          const uint4* const left4 = reinterpret_cast<const uint4*>(splat + (t & 1) * splat_stage + ti * kSplatSlot);  // 16-byte aligned
#pragma unroll
          for (int kk = 0; kk < 8; ++kk) {
            const uint4 lo = left4[2 * kk], hi4 = left4[2 * kk + 1];
            const Word a[8] = {static_cast<Word>(lo.x), static_cast<Word>(lo.y), static_cast<Word>(lo.z), static_cast<Word>(lo.w),
                               static_cast<Word>(hi4.x), static_cast<Word>(hi4.y), static_cast<Word>(hi4.z), static_cast<Word>(hi4.w)};
            const Eight bv = C::load8(s + g.at(kb4 + 1 + kk, jb));
#pragma unroll
            for (int r = 0; r < 8; ++r) add_row<Cell>(acc[r], a[r], bv);
          }
        }
        Eight left[8];
        if constexpr (!kSplat) {
#pragma unroll
          for (int r = 0; r < 8; ++r) left[r] = C::load8(f + g.at(ib + r, kb4));
          tile_product<Cell, 8>(acc, [&](int r, int kk) { return C::splat(left[r], kk); }, s + g.at(kb4 + 1, jb), g.rl);
        }
        // Term 5: k + 1 in tile row K' = J - t, S2(i, k) (k = kb5 - 1 + kk: cell 7 of the eight before
        // kb5, then cells 0 .. 6 of kb5's) times F(k + 1, j). Each value is splatted straight from the eight
        // that holds it (one permute, not a shifted row of eight first); of the eight before kb5 only its
        // last cell is loaded (one register a row, not four).
        const int kb5 = 8 * (tj - t);
        Word before[8];
#pragma unroll
        for (int r = 0; r < 8; ++r) {
          before[r] = C::splat_at(s + g.at(ib + r, kb5 - 8), 7);
          left[r] = C::load8(s + g.at(ib + r, kb5));
        }
        tile_product<Cell, 8>(acc, [&](int r, int kk) { return kk == 0 ? before[r] : C::splat(left[r], kk - 1); },
                           f + g.at(kb5, jb), g.rl);
        if (t == delta - 2) {
#pragma unroll
          for (int r = 0; r < 8; ++r) C::store8(f + g.at(ib + r, jb), acc[r]);
        }
      }
      named_barrier(0, kThreads);
    }
  }
  // The last stage's barrier has passed: write this block's own rows, whole chunks (16-byte loads and
  // stores) with minus infinity outside the band and the target.
  for_row_chunks<kThreads>(imin(kPT, m - i0), row_chunks(pd), [&](int c, int q) {
    const int i2 = i0 + c, d0 = chunk_d(i2, q);
    Row8<Cell> piece = load_row8_shared(f + g.at(c, c + d0));
    if (!in_band(i2, d0, l2, m) || !in_band(i2, d0 + 7, l2, m)) {
#pragma unroll
      for (int k = 0; k < 8; ++k)
        if (!in_band(i2, d0 + k, l2, m)) piece.v[k] = static_cast<Cell>(C::kNeg);
    }
    store_row8(slab_row(slab, pd, i0 + c) + 8 * q, piece);
  });
}

constexpr int kFixedRowL2 = 128;
constexpr int kFixedRow = (kFixedRowL2 + 8 + 7) / 8 * 8;  // 136

// The geometry of a block `pt` columns wide for target window l2 in a launch whose windows are all at
// most max_l2, and its shared memory.
constexpr PatchGeometry launch_geometry(int l2, int max_l2, int pt = kPatchT) {
  return PatchGeometry(l2, max_l2 <= kFixedRowL2 ? kFixedRow : 0, pt);
}
constexpr std::size_t bytes_for(int l2, int max_l2, int pt, int cell_bytes) {
  const PatchGeometry g = launch_geometry(l2, max_l2, pt);
  // The two tables, the closures and weights (cells), then term 4's words for two stages (4 bytes each)
  // where the kernel has them (16-bit cells and a fixed row length: windows up to kFixedRowL2; a 32-bit
  // cell is its own word, read from F).
  const std::size_t cells = 2 * static_cast<std::size_t>(g.cells) + static_cast<std::size_t>(g.ni) * (kClosureCells + seq::kAlphabetSize * 8);
  const std::size_t splat = has_splat_buffer(max_l2 <= kFixedRowL2, cell_bytes) ? 2 * static_cast<std::size_t>(g.ni) * kSplatSlot * 4 : 0;
  return cells * static_cast<std::size_t>(cell_bytes) + splat;
}

// A block's threads for target window l2: the finishers and one owner per tile past the second diagonal.
int patch_threads(int l2, int pt = kPatchT) { return PatchGeometry(l2, 0, pt).threads(); }

// Shared memory of the 64-column forms; 0 for windows they do not take. 32-bit windows that need more than
// kPatchThreads threads have no 64-column form (their tables exceed every GPU's shared memory so far:
// wide_cells_fit_the_narrow_form); the 32-column form below may take them.
constexpr std::size_t form64_bytes(int l2, int cell_bytes) {
  const PatchGeometry g(l2);
  if (!window_fits(g) || (cell_bytes == 4 && g.threads() > kPatchThreads)) return 0;
  return bytes_for(l2, l2, kPatchT, cell_bytes);
}

// Shared memory of the 32-column form (its own row length for each window, no splat buffer); 0 for windows
// it does not take.
constexpr std::size_t form32_bytes(int l2, int cell_bytes) {
  const PatchGeometry g(l2, 0, kPatchT32);
  if (!window_fits(g) || g.threads() > kPatchThreads) return 0;
  const std::size_t cells = 2 * static_cast<std::size_t>(g.cells) + static_cast<std::size_t>(g.ni) * (kClosureCells + seq::kAlphabetSize * 8);
  return cells * static_cast<std::size_t>(cell_bytes);
}

// Every window a block takes has its finishers and owners in the launch form that launch_patch_up picks
// for it: the wide form (192 columns) for windows up to kFixedRowL2, the 64-column form of kPatchThreads
// for windows up to kFixedRowL2 + 1, and kPatchThreadsMax for the rest.
constexpr bool launch_forms_hold_their_windows() {
  for (int l2 = 1; 8 * PatchGeometry(l2).ni <= kMaxWindowCodes; ++l2) {
    const PatchGeometry g(l2);
    if (!window_fits(g)) continue;
    if (g.threads() > kPatchThreadsMax) return false;
    if (l2 <= kFixedRowL2 + 1 && g.threads() > kPatchThreads) return false;
    if (l2 <= kFixedRowL2 && PatchGeometry(l2, 0, kWidePatchT).threads() > kWidePatchThreads) return false;
  }
  return true;
}
static_assert(launch_forms_hold_their_windows(), "a patch-up launch form has too few threads for its windows");

// The kernel's static shared memory (the pair table and the window's codes), each rounded up to 16 bytes as
// ptxas places them (576 bytes on sm_90; 562 without the rounding undercounted it).
constexpr std::size_t round16(std::size_t b) { return (b + 15) / 16 * 16; }
constexpr std::size_t kPatchStaticBytes = round16(sizeof(std::int16_t) * seq::kAlphabetSize * seq::kAlphabetSize) +
                                          round16(sizeof(std::uint8_t) * kMaxWindowCodes);
// The most shared memory a block can opt into on any CUDA GPU so far (sm_90 and sm_100: 227 KB).
constexpr std::size_t kLargestBlockShared = 227 * 1024;
// 32-bit tables of every window that needs more than kPatchThreads threads (L2 over 129) are larger than
// any block's shared memory, so the host sends those pairs to the CPU and no 32-bit launch of
// kPatchThreadsMax exists (that form would hold 64 32-bit accumulators an owner in 96 registers, and
// spilled about 600 bytes).
constexpr bool wide_cells_fit_the_narrow_form() {
  for (int l2 = 1; 8 * PatchGeometry(l2).ni <= kMaxWindowCodes; ++l2) {
    const PatchGeometry g(l2);
    if (window_fits(g) && g.threads() > kPatchThreads && bytes_for(l2, l2, kPatchT, 4) + kPatchStaticBytes <= kLargestBlockShared)
      return false;
  }
  return true;
}
static_assert(wide_cells_fit_the_narrow_form(), "a 32-bit patch-up window needs the 640-thread form");

}  // namespace

namespace detail {
std::size_t patch_static_bytes() { return kPatchStaticBytes; }
std::size_t patch_shared_bytes(int l2, int cell_bytes) {
  // The smallest form that takes the window: the 64-column one or the 32-column one.
  const std::size_t b64 = form64_bytes(l2, cell_bytes), b32 = form32_bytes(l2, cell_bytes);
  return b32 > 0 && (b64 == 0 || b32 < b64) ? b32 : b64;
}
}  // namespace detail

int patch_tile_width(int max_l2, bool wide, std::size_t max_shared) {
  const std::size_t room = max_shared > detail::patch_static_bytes() ? max_shared - detail::patch_static_bytes() : 0;
  const int cell = wide ? 4 : 2;
  if (!wide && max_l2 <= kFixedRowL2 && bytes_for(max_l2, max_l2, kWidePatchT, 2) <= room) return kWidePatchT;
  // The 64-column form where it takes the window and fits (or where nothing does: the host routes no such
  // batch here), else the 32-column one.
  const std::size_t b64 = form64_bytes(max_l2, cell), b32 = form32_bytes(max_l2, cell);
  return (b64 == 0 || b64 > room) && b32 > 0 && b32 <= room ? kPatchT32 : kPatchT;
}

void launch_patch_up(const BatchView& b, int d1, const std::int64_t* prefix, std::int64_t items, void* stream) {
  if (items == 0) return;
  const int threads = patch_threads(b.max_l2);
  by_cell(b.wide, [&](auto cell) {
    using Cell = decltype(cell);
    const std::size_t bytes = bytes_for(b.max_l2, b.max_l2, b.patch_width, sizeof(Cell));
    if constexpr (sizeof(Cell) == 2) {
      if (b.patch_width == kWidePatchT) {
        launch(patch_up_kernel<Cell, kWidePatchThreads, kFixedRow, kWidePatchT>, items, kWidePatchThreads, bytes,
               stream, b, d1, prefix);
        return;
      }
    }
    if (b.patch_width == kPatchT32) {
      launch(patch_up_kernel<Cell, kPatchThreads, 0, kPatchT32>, items, kPatchThreads, form32_bytes(b.max_l2, sizeof(Cell)),
             stream, b, d1, prefix);
      return;
    }
    // The 64-column forms run one block an SM too: their tables (121 KB at W2 = 128, 114 KB at 129) do not
    // fit twice, and a two-block register bound (80) only made ptxas spill. (Only much smaller windows, on a
    // GPU whose shared memory cannot hold the wide form, would have room for two blocks; not tuned.)
    // Windows up to kFixedRowL2 (the thesis's W2 = 128) use one row length, a constant in the kernel's
    // addressing.
    if (b.max_l2 <= kFixedRowL2)
      launch(patch_up_kernel<Cell, kPatchThreads, kFixedRow>, items, kPatchThreads, bytes, stream, b, d1, prefix);
    else if (threads <= kPatchThreads)
      launch(patch_up_kernel<Cell, kPatchThreads, 0>, items, kPatchThreads, bytes, stream, b, d1, prefix);
    else if constexpr (sizeof(Cell) == 2)
      launch(patch_up_kernel<Cell, kPatchThreadsMax, 0>, items, kPatchThreadsMax, bytes, stream, b, d1, prefix);
    else  // patch_shared_bytes is 0 for such windows: the host never plans such a batch
      throw ResourceError("BPMax patch-up: 32-bit tables of target window " + std::to_string(b.max_l2) +
                          " do not fit a block's shared memory");
  });
}

}  // namespace screen::kernels::bpmax
