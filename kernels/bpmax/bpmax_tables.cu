// BPMax tables on the GPU (layout and launch order: bpmax_launch.hpp).
//
// Double reduction (term 1) of a slab (i1, j1): for every target interval (i2, j2) of the slab,
//   C(i2, j2) = max over k1, k2 of A_k1(i2, k2) + B_k1(k2 + 1, j2),
// A_k1 = slab (i1, k1), B_k1 = slab (k1 + 1, j1): for each k1 a max-plus product of two banded
// matrices. One block owns a tile of kT consecutive i2 (all j2 of the band) of one slab; for every
// k1 it stages A (rows k2, by i2 group) and B (dense rows k2 + 1, columns j2) in shared memory
// with "minus infinity" outside the band: B as cp.async copies of the slab rows' aligned chunks
// (bpmax_launch.hpp's layout: rows of interval starts, which is B's orientation), A copied one k1 ahead
// into a landing buffer and transposed from there after a barrier into whole words by i2 group (a_rows).
// So a thread's 8 x 8 micro-tile of cells runs one uniform k2 loop: per k2, 8 words of A (16-bit values
// splatted into both halves, no permutes in the loop) against 8 values of B,
// 32 (16-bit, __viaddmax_s16x2) or 64 (32-bit, __viaddmax_s32) fused add-max instructions. A thread's
// work is up to three segments (ranges of k2 steps of one micro-tile, each with its own accumulators,
// kept in registers across all k1; balanced_segments, or paired_segments for wide windows and 32-bit
// cells), cut so that the four warps, which run on the SM's four schedulers, have about the same number
// of steps; partial maxima of one micro-tile merge in shared memory at the end, and join the tile's own
// cells (the base case, or 0 and term 6) as the tile is written back. Terms 2 and 3 come out of the same
// k2 loop through the diagonal d = -1 of the staged A and B (see below).
//
// Patch-up (terms 4, 5 and 7): bpmax_patch_up.cu.
//
// Single-strand tables (S1 of the query, S2 of z): one block owns kSingleT columns and recomputes, in
// shared memory, the columns up to kSingleT + L - 2 to their right, row d after row d (Nussinov's
// recurrence), and writes its own columns.
#include "kernels/bpmax/bpmax_device.cuh"

namespace screen::kernels::bpmax {

using namespace detail;

namespace {

constexpr int kT = 64;          // double reduction: i2 columns per block
constexpr int kMt = 8;          // micro-tile edge
constexpr int kThreads1 = 128;  // threads of a double-reduction block
constexpr int kMaxBalancedBands = 16;  // balanced_segments: band offsets 0 .. 16
constexpr int kMaxBalancedL2 = kMt * (kMaxBalancedBands + 1) - 7;  // 129: the largest L2 with 16 band offsets
constexpr int kSingleT = 64;    // single tables: columns per block
constexpr int kThreadsSingle = 256;
constexpr int kThreadsSite = 256;


// Band offsets of micro-tiles: delta = 0 .. D with D = (L2 + 6) / 8 (a micro-tile at offset delta
// holds cells with j2 - i2 in [8 delta - 7, 8 delta + 7]).
__host__ __device__ constexpr int band_blocks(int l2) { return (l2 + 6) / kMt; }
// Staged rows of a double-reduction block: B rows k - i0 in [0, staged].
__host__ __device__ constexpr int staged(int l2) { return kT + kMt * band_blocks(l2); }
// A is staged by i2 groups of 8 (the micro-tiles' rows, alpha = (i2 - i0) / 8), each value as a whole
// word (16-bit cells: splatted into both halves, so that the k2 loop feeds the fused add-max directly and
// issues no byte permutes, which take the integer pipe like the add-max itself): row k2 - 8 alpha + 1 of
// group alpha holds the 8 words A(8 alpha + r, k2), r = 0 .. 7. A micro-tile at band offset delta reads
// k2 in [8 alpha - 1, 8 alpha + 8 delta + 8): a_rows(l2) rows. Groups a_group_words apart: an odd number
// of 16-byte units, so the 16-byte loads of the 8 groups at one row fall on distinct bank groups.
__host__ __device__ constexpr int a_rows(int l2) { return kMt * band_blocks(l2) + 9; }
__host__ __device__ constexpr int a_group_words(int l2) { return a_rows(l2) * kMt + 4; }
__host__ __device__ constexpr int a_words(int l2) { return (kT / kMt) * a_group_words(l2); }
__device__ __forceinline__ int a_word_at(int l2, int alpha, int row, int r) { return alpha * a_group_words(l2) + row * kMt + r; }
// B is staged banded: row k holds columns j2 in [k - 8, k + L2 + 8) at k * rl + j2 + 8, rl = b_row(l2)
// >= L2 + 15 and a multiple of 8: the 8-cell loads of a micro-tile (j2 a multiple of 8) stay 16-byte
// aligned, consecutive rows do not overlap, and the loads of the 8 micro-tiles of a quarter warp
// (rows 8 apart, columns 8 apart) fall on 8 different 16-byte bank groups.
__host__ __device__ constexpr int b_row(int l2) { return (l2 + 15 + 7) / 8 * 8; }
__device__ __forceinline__ int b_at(int k, int j, int rl) { return k * rl + j + 8; }
__host__ __device__ constexpr int b_cells(int l2, int rl) { return (staged(l2) + 1) * (rl + 1) + l2 + 24; }
// Shared memory, in bytes: A's words, then B's cells, then A's landing buffer (the kT slab rows of a k1,
// chunk q of row c at (q kT + c) 8 cells, as cp.async copies them), each at a multiple of 16 bytes.
__host__ __device__ constexpr int a_bytes(int l2) { return a_words(l2) * 4; }
__host__ __device__ constexpr int raw_byte_at(int l2, int rl, int cell) { return (a_bytes(l2) + b_cells(l2, rl) * cell + 15) / 16 * 16; }
__host__ __device__ constexpr int raw_cells(int l2) { return kT * f_row_cells(l2); }
// The balanced kernel's B rows have one length for every window it takes (so the strides are constants).
__host__ __device__ constexpr int b_row_of(int l2, bool balanced) { return balanced ? b_row(kMaxBalancedL2) : b_row(l2); }
// After the k1 loop, the products in the slab rows' chunks (from the start of shared memory, over A's words
// and B's cells, which are free by then; the landing buffer after them holds the inner slab's rows): chunk q
// of tile row c at product_chunk(c, q) cells, one chunk skipped every 8 rows so that the rows of the 8 i2
// groups (8 chunks apart otherwise, the same banks) fall on distinct banks.
__host__ __device__ constexpr int product_chunk(int c, int q) { return 8 * (q * (kT + kT / kMt) + c + c / kMt); }
constexpr bool products_fit(int max_l2) {
  for (int l2 = 1; l2 <= max_l2; ++l2)
    for (int cell = 2; cell <= 4; cell += 2) {
      const int nq = f_row_cells(l2) / 8, end = (product_chunk(kT - 1, nq - 1) + 8) * cell;
      if (end > raw_byte_at(l2, b_row_of(l2, cell == 2 && band_blocks(l2) <= kMaxBalancedBands), cell)) return false;
    }
  return true;
}
static_assert(products_fit(512), "the products' chunks end before the landing buffer");

// A thread's share of a block's k2 steps: steps [k2, k2 + len) of the micro-tile whose first j2 is br
// (its rows are the thread's i2 group ar .. ar + 7; the micro-tile at band offset delta, br = ar + 8 delta,
// runs k2 over [ar - 1, br + 8): 8 delta + 9 steps). Every segment has its own accumulators.
struct Segment {
  int br = 0, k2 = 0, len = 0;
};

// The pairing for windows with more than 17 band offsets and for 32-bit cells: slot (alpha, q) owns the
// micro-tiles q and nd - q (one when they coincide), 8 nd + 18 steps; 72 of the 128 threads own slots.
__device__ inline void paired_segments(int nd, int ar, Segment (&seg)[2]) {
  const int q = static_cast<int>(threadIdx.x) / (kT / kMt);
  const bool owner = q <= nd / 2, second = owner && nd - q != q;
  seg[0] = owner ? Segment{ar + kMt * q, ar - 1, kMt * q + 9} : Segment{};
  seg[1] = second ? Segment{ar + kMt * (nd - q), ar - 1, kMt * (nd - q) + 9} : Segment{};
}

// The balanced form (up to 17 band offsets, nd <= 16, 16-bit cells): every warp runs about the same
// number of steps (79 at L2 = 128, against 170 for the pairing), and the lanes of a warp run their
// loops in step (no divergence but the last step or so). The micro-tiles q and nd - q form a pair of
// 8 nd + 18 steps, split in two halves of 4 nd + 9: slot A takes micro-tile q whole (8 q + 9 steps) and
// the first 4 nd - 8 q steps of nd - q; slot B the rest of nd - q, cut at the same point (8 q + 9, then
// 4 nd - 8 q). Warp w takes the pairs w and P - 1 - w (P = (nd + 1) / 2 pairs) in its four quarters
// (A, B, A, B; one quarter = the 8 i2 groups), the second pair's halves in the other order, so that the
// quarters' first loops (8 w + 9 and 4 nd - 8 (P - 1 - w) steps) and second loops nearly match. For
// even nd the middle micro-tile nd / 2 (4 nd + 9 steps) is shared out: the 16 quarters of the block
// take a sixteenth each as a third segment.
__device__ inline void balanced_segments(int nd, int ar, Segment (&seg)[3]) {
  const int tid = static_cast<int>(threadIdx.x), w = tid / 32, quarter = (tid / 8) & 3;
  const int pairs = (nd + 1) / 2, qa = w, qb = pairs - 1 - w;
  const bool has_a = qa < pairs, has_b = qb > qa && qb < pairs;
  const bool second_pair = quarter >= 2, b_slot = quarter & 1;
  const int q = second_pair ? qb : qa, big = nd - q;
  seg[0] = seg[1] = seg[2] = Segment{};
  if (second_pair ? has_b : has_a) {
    const int small_steps = kMt * q + 9, cut = 4 * nd - kMt * q;
    if (!b_slot) {
      seg[0] = Segment{ar + kMt * q, ar - 1, small_steps};
      seg[1] = Segment{ar + kMt * big, ar - 1, cut};
    } else {
      seg[0] = Segment{ar + kMt * big, ar - 1 + cut, small_steps};
      seg[1] = Segment{ar + kMt * big, ar - 1 + cut + small_steps, cut};
    }
    if (second_pair) {
      const Segment t = seg[0];
      seg[0] = seg[1];
      seg[1] = t;
    }
  }
  if (nd % 2 == 0) {
    const int total = 4 * nd + 9, parts = kThreads1 / kMt, part = tid / kMt;
    const int first = part * total / parts;
    seg[2] = Segment{ar + kMt * (nd / 2), ar - 1 + first, (part + 1) * total / parts - first};
  }
}

// What the staged entries hold for one k1, and why one uniform k2 loop gives terms 1, 2 and 3: a valid
// cell (i2, j2) of a micro-tile (first i2 ar, first j2 br) runs k2 over [ar - 1, br + 8), reading
// A(i2, k2) (d = k2 - i2 in [-8, L2 + 6]) and B(k2 + 1, j2) (d = j2 - k2 - 1 in [-8, L2 + 6]).
//   - band d in [0, L2): the slabs' cells, staged for every k1: k2 in [i2, j2) is term 1;
//   - d = -1: A(i2, i2 - 1) = S1(i1, k1) and B(j2 + 1, j2) = S1(k1 + 1, j1), written for every k1:
//     k2 = i2 - 1 gives S1(i1, k1) + F(k1 + 1, j1, i2, j2) (term 3) and k2 = j2 gives
//     F(i1, k1, i2, j2) + S1(k1 + 1, j1) (term 2);
//   - d in [-8, -1) and [L2, L2 + 8): minus infinity, set once; every other k2 pairs such an entry
//     (or a d = -1 entry with a minus infinity) with a band value, so the sum stays below any score.
// Other staged entries are only read for cells outside the band, which are not stored.



// ---- double reduction -----------------------------------------------------------------------------

// The 8 staged words of one k2 step of a micro-tile (A of its 8 rows), two 16-byte loads.
template <class Word>
struct AWords {
  Word w[kMt];
};
// Cell k of a slab-row chunk as A's staged word (16-bit: splatted into both halves, one permute).
template <class Cell>
__device__ __forceinline__ typename Cells<Cell>::Word staged_word(const Row8<Cell>& p, int k) {
  if constexpr (sizeof(Cell) == 2) {
    const uint4 q = p.q[0];
    const unsigned w = k < 2 ? q.x : k < 4 ? q.y : k < 6 ? q.z : q.w;
    return __byte_perm(w, 0, (k & 1) ? 0x3232 : 0x1010);
  } else {
    return p.v[k];
  }
}
template <class Word>
__device__ __forceinline__ AWords<Word> load_a_words(const Word* p) {
  AWords<Word> a;
  const uint4 lo = reinterpret_cast<const uint4*>(p)[0], hi = reinterpret_cast<const uint4*>(p)[1];
  a.w[0] = static_cast<Word>(lo.x), a.w[1] = static_cast<Word>(lo.y), a.w[2] = static_cast<Word>(lo.z), a.w[3] = static_cast<Word>(lo.w);
  a.w[4] = static_cast<Word>(hi.x), a.w[5] = static_cast<Word>(hi.y), a.w[6] = static_cast<Word>(hi.z), a.w[7] = static_cast<Word>(hi.w);
  return a;
}

// kLanding: A's next rows land in shared memory by cp.async during the products (the form of every GPU with
// room for it); without it (GPUs with 99 KB a block) the transposition and the write-back read them from
// global memory, and the block needs the landing buffer's 17 KB less (double_reduction_bytes). Only the
// balanced form (16-bit cells, windows up to 129) has a form without it: that is the one the GPU tests run
// (landing_optional).
template <class Cell, bool kBalanced, bool kLanding = true>
__global__ void __launch_bounds__(kThreads1, 2) double_reduction_kernel(BatchView b, int d1, const std::int64_t* prefix) {
  using C = Cells<Cell>;
  using Eight = typename C::Eight;
  extern __shared__ __align__(16) unsigned char smem[];
  const SlabTile st = slab_tile(b, prefix, kT);
  const PairDesc& pd = st.pd;
  const int i1 = st.i1, i0 = st.i0;
  const int j1 = i1 + d1;
  const int l2 = pd.l2, m = pd.m;
  const int nd = band_blocks(l2), rows = staged(l2), rl = b_row_of(l2, kBalanced);
  using Word = typename C::Word;
  Word* const aw = reinterpret_cast<Word*>(smem);                   // a_word_at: A(i2, k2), one word each
  Cell* const bs = reinterpret_cast<Cell*>(smem + a_bytes(l2));    // b_at(k - i0, j2 - i0, rl): B(k, j2)
  Cell* const ct = reinterpret_cast<Cell*>(smem);                   // the products after the k1 loop: product_chunk
  Cell* const f = static_cast<Cell*>(b.f);
  const Cell* const s = static_cast<const Cell*>(b.s);
  const std::uint8_t* const x = b.codes + pd.x;
  const std::uint8_t* const z = b.codes + pd.z;
  const int tid = threadIdx.x;
  const Cell neg = static_cast<Cell>(C::kNeg);

  // This thread's work: up to kSegments segments, each a range of k2 steps of one micro-tile with its own
  // accumulators (balanced_segments or paired_segments).
  constexpr int kSegments = kBalanced ? 3 : 2;
  const int alpha = tid % (kT / kMt), ar = alpha * kMt;
  Segment seg[kSegments];
  if constexpr (kBalanced)
    balanced_segments(nd, ar, seg);
  else
    paired_segments(nd, ar, seg);

  const int nq = row_chunks(pd);
  // Every segment starts from minus infinity; the tile's own cells (the base case, or 0 and term 6) join
  // the products' maxima when the tile is written back (below), so nothing is staged before the k1 loop.
  Eight acc[kSegments][kMt];
#pragma unroll
  for (int j = 0; j < kSegments; ++j)
#pragma unroll
    for (int r = 0; r < kMt; ++r) acc[j][r] = C::fill8(C::kNeg);
  // Minus infinity in all of A and B, once (A's band and d = -1, and B's copied chunks and d = -1, are
  // rewritten for every k1; rows past the target are never written).
  {
    const Word negw = C::splat_value(C::kNeg);
    const uint4 negs4 = make_uint4(negw, negw, negw, negw);
    for (int e = tid; e < a_words(l2) / 4; e += kThreads1) reinterpret_cast<uint4*>(aw)[e] = negs4;
  }
  {
    const Eight negs = C::fill8(C::kNeg);
    for (int e = tid; e < b_cells(l2, rl) / 8; e += kThreads1) C::store8(bs + 8 * e, negs);
  }

  const int last_j = kT - 1 + kMt * nd;  // the largest j2 - i0 of any micro-tile (alpha 7, delta nd)
  Cell* const raw = reinterpret_cast<Cell*>(smem + raw_byte_at(l2, rl, sizeof(Cell)));
  // Every global read of the k1 loop is a cp.async copy of whole 8-cell chunks of slab rows
  // (bpmax_launch.hpp), issued with a fixed mapping: thread t takes chunk columns q = t % 16 (+ 16 ...)
  // of rows t / 16 + 8 j, so that 16 consecutive threads read 256 contiguous bytes of one row and a
  // thread's rows advance by a constant.
  const int lane16 = tid & 15, row8 = tid >> 4;
  // A's slab rows (interval starts i0 .. i0 + kT - 1) of query interval (i1, k1) into the landing buffer.
  // The tile's rows (interval starts i0 .. i0 + kT - 1) of a slab into the landing buffer: A's of
  // query interval (i1, k1), or after the last k1 the inner slab's (term 6, for the write-back).
  auto copy_rows = [&](const Cell* const a) {
    const int cn = imin(kT, m - i0);  // rows inside the target
    // Chunk column q of this thread's rows row8 + 8 j.
    auto column = [&](int q) {
      copy_chunks_async(shared_address(raw + 8 * (q * kT + row8)), 8 * 8 * sizeof(Cell), slab_row(a, pd, i0 + row8) + 8 * q,
                        8 * static_cast<std::int64_t>(row_cells(pd)), imin(kT / 8, (cn - row8 + 7) / 8));
    };
    if (lane16 < nq) column(lane16);
    // Chunk columns past the 16 lanes: one row per thread where there is one (nq = 17 at L2 = 128), not a
    // second pass of lane 0; wider windows keep 16-lane passes (whole sectors of a row).
    if (nq == 17) {
      for (int c = tid; c < cn; c += kThreads1) copy_chunk_async(raw + 8 * (16 * kT + c), slab_row(a, pd, i0 + c) + 8 * 16);
    } else if (lane16 + 16 < nq) {
      for (int q = lane16 + 16; q < nq; q += 16) column(q);
    }
  };
  auto copy_a = [&](int k1) {
    if constexpr (kLanding) copy_rows(slab_ptr(f, pd, i1, k1 - i1));
  };
  const Cell* const inner = (d1 > kMinLoop) ? slab_ptr(f, pd, i1 + 1, d1 - 2) : nullptr;
  if (i1 < j1) copy_a(i1);  // (d1 = 0 has no k1: its slab (i1, 0) is being written by this launch)
  for (int k1 = i1; k1 < j1; ++k1) {
    __syncthreads();
    // B(k, j2) = F(k1 + 1, j1, k, j2) for rows k = i0 + kk, kk in [0, rows]: chunk q of slab row k goes to
    // b_at(kk, row_first(kk) + 8 q), aligned (i0 is a multiple of 8); rows kk = row8 + 8 j have
    // row_first(kk) = 8 j. Chunks past last_j are never read; rows past the target stay minus infinity.
    {
      const Cell* const bb = slab_ptr(f, pd, k1 + 1, j1 - k1 - 1);
      const int row_end = imin(rows + 1, m - i0);
      // Chunk column q of this thread's rows row8 + 8 j, up to the last row or the last column read.
      auto column = [&](int q) {
        const int jn = imin((row_end - row8 + 7) / 8, (last_j - 8 * q) / 8 + 1);
        copy_chunks_async(shared_address(bs + b_at(row8, 8 * q, rl)), 8 * (rl + 1) * sizeof(Cell),
                          slab_row(bb, pd, i0 + row8) + 8 * q, 8 * static_cast<std::int64_t>(row_cells(pd)), jn);
      };
      if (lane16 < nq) column(lane16);
      // Chunk columns past the 16 lanes: with one (nq = 17 at L2 = 128), one row per thread, instead of a
      // second pass in which two lanes of every warp copied all the rows (term 1 of 23 x 20,000 0.0271 ->
      // 0.0261 s); wider windows keep 16-lane passes, whole sectors of a row (23 x 200: 0.0037 against
      // 0.0040 s one row per thread).
      if (nq == 17) {
        for (int k = tid; k < row_end; k += kThreads1)
          if (8 * (k >> 3) + 8 * 16 <= last_j) copy_chunk_async(bs + b_at(k, 8 * (k >> 3) + 8 * 16, rl), slab_row(bb, pd, i0 + k) + 8 * 16);
      } else {
        for (int q = lane16 + 16; q < nq; q += 16) column(q);
      }
    }
    wait_async_copies();
    __syncthreads();
    // A(i2, k2) from the landing buffer into its words: chunk q of row c (i2 = i0 + c, alpha = c / 8,
    // r = c % 8) holds d = k2 - i2 = 8 q - r + k, that is row k2 - 8 alpha + 1 = 8 q + 1 + k of group alpha.
    // Only the band's cells of rows inside the target are stored (the rest stays minus infinity); the
    // d = -1 entries A(i2, i2 - 1) = S1(i1, k1) (term 3) and B(k, k - 1) = S1(k1 + 1, j1) (term 2) are
    // written below. The lanes of a warp take rows c = 8 (lane / 4) + lane % 4 + 4 h of one chunk column
    // q (four rows of each group): groups are a_group_words = 12 mod 32 banks apart, so the warp's 32
    // word stores of one k fall on distinct banks.
    // Item e = tid + 128 n of the kT nq chunks is lane e % 32 of warp slot e / 32: a thread keeps its row c
    // and takes every second chunk column from its first, so its loop only adds constants to its
    // addresses (2.5 times fewer instructions than decoding each item).
    {
      const unsigned lane = static_cast<unsigned>(tid) & 31u, slot = static_cast<unsigned>(tid) >> 5;
      const int c = static_cast<int>(((lane >> 2) << 3) | (lane & 3u) | ((slot & 1u) << 2)), r = c & (kMt - 1);
      int q = static_cast<int>(slot >> 1);
      if (i0 + c < m) {
        // Chunk q of row c: in the landing buffer, or in the slab's row.
        const Cell* from = kLanding ? raw + 8 * (q * kT + c) : slab_row(slab_ptr(f, pd, i1, k1 - i1), pd, i0 + c) + 8 * q;
        constexpr int kFromStep = kLanding ? 16 * kT : 16;
        Word* to = aw + a_word_at(l2, c / kMt, 8 * q + 1, r);
        for (int d0 = chunk_d(i0 + c, q); q < nq; q += 2, d0 += 16, from += kFromStep, to += 16 * kMt) {
          const Row8<Cell> piece = kLanding ? load_row8_shared(from) : load_row8(from);
          if (d0 >= 0 && d0 + 7 < l2) {
#pragma unroll
            for (int k = 0; k < 8; ++k) to[k * kMt] = staged_word(piece, k);
          } else {
#pragma unroll
            for (int k = 0; k < 8; ++k)
              if (d0 + k >= 0 && d0 + k < l2) to[k * kMt] = staged_word(piece, k);
          }
        }
      }
    }
    {
      const Cell sbv = s[pd.s1 + static_cast<std::int64_t>(k1 - i1) * pd.stride1 + i1];       // S1(i1, k1)
      const Cell sa = s[pd.s1 + static_cast<std::int64_t>(j1 - k1 - 1) * pd.stride1 + k1 + 1];  // S1(k1+1, j1)
      for (int k = tid; k <= rows; k += kThreads1) {
        if (k < kT) aw[a_word_at(l2, k / kMt, k % kMt, k % kMt)] = C::splat_value(sbv);
        bs[b_at(k, k - 1, rl)] = sa;
      }
    }
    __syncthreads();
    // The next k1's A lands while this one's products run; after the last k1, the inner slab's rows.
    if (k1 + 1 < j1)
      copy_a(k1 + 1);
    else if (kLanding && inner)
      copy_rows(inner);
#pragma unroll
    for (int j = 0; j < kSegments; ++j) {
      const Word* const pa = aw + a_word_at(l2, alpha, seg[j].k2 - ar + 1, 0);
      const Cell* const pb = bs + b_at(seg[j].k2 + 1, seg[j].br, rl);
      if (seg[j].len == 0) continue;
      // The next step's A and B are loaded before this step's updates, so that their shared-memory
      // latency hides behind 32 fused add-max instructions.
      const Word* na = pa + kMt;
      const Cell* nb = pb + rl;
      AWords<Word> av = load_a_words(pa);
      Eight bv = C::load8(pb);
#pragma unroll 2
      for (int t = 1; t < seg[j].len; ++t, na += kMt, nb += rl) {
        const AWords<Word> an = load_a_words(na);
        const Eight bn = C::load8(nb);
#pragma unroll
        for (int r = 0; r < kMt; ++r) add_row<Cell>(acc[j][r], av.w[r], bv);
        av = an;
        bv = bn;
      }
#pragma unroll
      for (int r = 0; r < kMt; ++r) add_row<Cell>(acc[j][r], av.w[r], bv);
    }
  }
  // The products back through shared memory in the slab rows' chunks, then to the slab.
  wait_async_copies();  // the inner slab's rows (term 6; d1 > kMinLoop, so the k1 loop ran)
  __syncthreads();
  // Row r of the micro-tile at band offset delta (first j2 br = ar + 8 delta) holds the ends d = 8 delta - r
  // + k of interval start i2 = i0 + ar + r: exactly chunk delta of that slab row (bpmax_launch.hpp), so each
  // row is one 16-byte store (cells outside the band are masked at the write-back). merge: the larger of it
  // and what is there.
  auto store_tile = [&](const Eight (&tile)[kMt], int br, bool merge) {
    const int q = (br - ar) / kMt;
#pragma unroll
    for (int r = 0; r < kMt; ++r) {
      Cell* const to = ct + product_chunk(ar + r, q);
      C::store8(to, merge ? max8<Cell>(C::load8(to), tile[r]) : tile[r]);
    }
  };
  if constexpr (kBalanced) {
    // Rounds separated by barriers, so that no two threads write one micro-tile at once: the A slots
    // (their pair's small micro-tile and a part of the big one), the B slots (the rest of the big one),
    // then the middle micro-tile's parts, reduced across the quarter warps and then across the warps.
    const int w = tid / 32, quarter = (tid / 8) & 3;
    const bool b_slot = quarter & 1;
    if (b_slot) {
#pragma unroll
      for (int r = 0; r < kMt; ++r)
#pragma unroll
        for (int k = 0; k < C::kWords; ++k) C::set_word(acc[0][r], k, C::max(C::word(acc[0][r], k), C::word(acc[1][r], k)));
    }
    const bool middle = nd % 2 == 0;
    if (middle) {
#pragma unroll
      for (int r = 0; r < kMt; ++r)
#pragma unroll
        for (int k = 0; k < C::kWords; ++k) {
          auto v = C::word(acc[2][r], k);
          v = C::max(v, __shfl_xor_sync(0xffffffffu, v, 8));
          v = C::max(v, __shfl_xor_sync(0xffffffffu, v, 16));
          C::set_word(acc[2][r], k, v);
        }
    }
    if (!b_slot && seg[0].len > 0) {
      store_tile(acc[0], seg[0].br, false);
      store_tile(acc[1], seg[1].br, false);
    }
    if (middle && w == 0 && quarter == 0) store_tile(acc[2], seg[2].br, false);
    __syncthreads();
    if (b_slot && seg[0].len > 0) store_tile(acc[0], seg[0].br, true);
    if (middle && w == 1 && quarter == 0) store_tile(acc[2], seg[2].br, true);
    __syncthreads();
    if (middle) {
      for (int round = 2; round < kThreads1 / 32; ++round) {
        if (w == round && quarter == 0) store_tile(acc[2], seg[2].br, true);
        __syncthreads();
      }
    }
  } else {
    if (seg[0].len > 0) store_tile(acc[0], seg[0].br, false);
    if (seg[1].len > 0) store_tile(acc[1], seg[1].br, false);
    __syncthreads();
  }
  // The tile's rows to the slab, whole chunks with minus infinity outside the band and the target, each cell the
  // larger of the products' maximum and the tile's own value: the base case (d1 = 0), else 0 and term 6,
  // w(x_i1, x_j1) + F(i1 + 1, j1 - 1, i2, j2) (chunk q of the inner slab's row holds the same ends; its rows
  // landed during the last k1's products).
  Cell* const out = slab_ptr(f, pd, i1, d1);
  const int wx = (d1 > kMinLoop) ? b.table.at(x[i1], x[j1]) : 0;
  for (int e = tid; e < kT * nq; e += kThreads1) {
    const int c = e % kT, q = e / kT, i2 = i0 + c;
    if (i2 >= m) continue;
    Row8<Cell> own;
    if (inner)  // chunk q of row c, as copy_rows lands it, or from the inner slab's row
      own = kLanding ? load_row8_shared(raw + 8 * e) : load_row8(slab_row(inner, pd, i2) + 8 * q);
    const Row8<Cell> prod = load_row8_shared(ct + product_chunk(c, q));
    Row8<Cell> piece;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const int d2 = chunk_d(i2, q) + k;
      int v = 0;
      if (d1 == 0)
        v = d2 == 0 ? b.table.at(x[i1], z[i2]) : 0;
      else if (inner)
        v = imax(0, wx + own.v[k]);
      piece.v[k] = in_band(i2, d2, l2, m) ? static_cast<Cell>(imax(v, prod.v[k])) : neg;
    }
    store_row8(slab_row(out, pd, i2) + 8 * q, piece);
  }
}

// ---- single tables ---------------------------------------------------------------------------------

// Rows 1 .. l-1 of a single-strand table window held in shared memory (row d, column c: the interval of
// length d + 1 starting at column c of the window, width `width`), in place (Nussinov, min_loop kMinLoop):
//   t[d][c] = max(t[o][c] + t[d-o-1][c+o+1] for o < d, w(c, c + d) + t[d-2][c+1] when d > kMinLoop).
// Column c is exact when c + d < width (all its sub-intervals are in the window).
template <class Cell>
__device__ void fill_window(Cell* t, int l, int width, const std::uint8_t* codes, int c0, int len,
                            const PairTable& table, int nthreads) {
  for (int d = 1; d < l; ++d) {
    for (int c = threadIdx.x; c + d < width; c += nthreads) {
      // Two independent max chains (even and odd splits) for instruction-level parallelism.
      int v = t[d * width + c], u = v;
#pragma unroll 4
      for (int o = 0; o < d; ++o) {
        const int left = o * width + c, right = (d - o - 1) * width + c + o + 1;
        if (o & 1)
          u = __viaddmax_s32(t[left], t[right], u);
        else
          v = __viaddmax_s32(t[left], t[right], v);
      }
      v = imax(v, u);
      if (d > kMinLoop) {
        const int g = c0 + c;
        const int w = (g + d < len) ? table.at(codes[g], codes[g + d]) : 0;
        v = imax(v, w + t[(d - 2) * width + c + 1]);
      }
      t[d * width + c] = static_cast<Cell>(v);
    }
    __syncthreads();
  }
}

// Strand 2p is the query of pair p (S1), 2p + 1 its reversed target (S2).
template <class Cell>
__global__ void __launch_bounds__(kThreadsSingle) single_tables_kernel(BatchView b, const std::int64_t* prefix) {
  extern __shared__ __align__(16) unsigned char smem[];
  const std::int64_t item = blockIdx.x;
  const int strand = find_pair(prefix, 2 * b.npairs, item);
  const PairDesc pd = b.pairs[strand / 2];
  const bool target = strand & 1;
  const int len = target ? pd.m : pd.n;
  const int l = target ? pd.l2 : pd.l1;
  const std::uint8_t* codes = b.codes + (target ? pd.z : pd.x);
  const int i0 = static_cast<int>(item - prefix[strand]) * kSingleT;
  const int width = kSingleT + l - 1;
  Cell* const t = reinterpret_cast<Cell*>(smem);
  for (int e = threadIdx.x; e < l * width; e += kThreadsSingle) t[e] = 0;
  __syncthreads();
  fill_window<Cell>(t, l, width, codes, i0, len, b.table, kThreadsSingle);
  Cell* out = static_cast<Cell*>(b.s) + (target ? pd.s2 : pd.s1);
  if (target) {
    // S2 as rows of interval starts, the F slabs' layout (bpmax_launch.hpp): row g, column
    // row_column(g, d) holds S2(g, g + d); whole rows, minus infinity outside the band and the target.
    const int frow = row_cells(pd), own = imin(kSingleT, len - i0);
    for (int e = threadIdx.x; e < own * frow; e += kThreadsSingle) {
      const int c = e / frow, u = e % frow, g = i0 + c, d = u - (g & 7);
      out[static_cast<std::int64_t>(g) * frow + u] =
          in_band(g, d, l, len) ? t[d * width + c] : static_cast<Cell>(Cells<Cell>::kNeg);
    }
  } else {
    for (int e = threadIdx.x; e < l * kSingleT; e += kThreadsSingle) {
      const int d = e / kSingleT, c = e % kSingleT, g = i0 + c;
      if (g + d < len) out[static_cast<std::int64_t>(d) * pd.stride1 + g] = t[d * width + c];
    }
  }
}

// ---- sites -----------------------------------------------------------------------------------------

template <class Cell>
__global__ void __launch_bounds__(kThreadsSite) sites_kernel(BatchView b, SiteOut* out) {
  __shared__ unsigned long long best[kThreadsSite / 32];
  const PairDesc pd = b.pairs[blockIdx.x];
  const Cell* f = static_cast<const Cell*>(b.f);
  const int ni = pd.n - pd.l1 + 1, nj = pd.m - pd.l2 + 1;
  const std::int64_t count = static_cast<std::int64_t>(ni) * nj;
  // Key: score (>= 0) high, then the complement of the linear index so that the first wins ties.
  unsigned long long key = 0;
  for (std::int64_t e = threadIdx.x; e < count; e += kThreadsSite) {
    const int i1 = static_cast<int>(e / nj), i2 = static_cast<int>(e % nj);
    const Cell* slab = slab_ptr(f, pd, i1, pd.l1 - 1);
    const int v = slab_row(slab, pd, i2)[row_column(i2, pd.l2 - 1)];  // F(i1, i1 + l1 - 1, i2, i2 + l2 - 1)
    const unsigned long long k = (static_cast<unsigned long long>(static_cast<unsigned>(v)) << 32) |
                                 (0xffffffffu - static_cast<unsigned>(e));
    key = k > key ? k : key;
  }
  for (int o = 16; o > 0; o /= 2) {
    const unsigned long long other = __shfl_down_sync(0xffffffffu, key, o);
    key = other > key ? other : key;
  }
  if ((threadIdx.x & 31) == 0) best[threadIdx.x / 32] = key;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kThreadsSite / 32; ++w) key = best[w] > key ? best[w] : key;
    const std::int64_t e = 0xffffffffu - static_cast<unsigned>(key & 0xffffffffu);
    SiteOut r;
    r.score = static_cast<int>(key >> 32);
    r.i1 = static_cast<int>(e / nj);
    r.i2 = static_cast<int>(e % nj);
    const Cell* s = static_cast<const Cell*>(b.s);
    r.query_single = pd.l1 == pd.n ? s[pd.s1 + static_cast<std::int64_t>(pd.n - 1) * pd.stride1] : 0;
    r.target_single = pd.l2 == pd.m ? s[pd.s2 + row_column(0, pd.m - 1)] : 0;  // S2(0, m - 1), row 0
    out[blockIdx.x] = r;
  }
}

bool balanced_for(int l2, int cell) { return cell == 2 && band_blocks(l2) <= kMaxBalancedBands; }
// Whether the double reduction has a form without A's landing buffer for this window and cell width.
bool landing_optional(int l2, int cell) { return balanced_for(l2, cell); }
// With the landing buffer (landing = true), or without it (A's words and B's table only).
std::size_t double_reduction_bytes(int l2, int cell, bool landing) {
  const int rl = b_row_of(l2, balanced_for(l2, cell));
  return static_cast<std::size_t>(raw_byte_at(l2, rl, cell)) +
         (landing ? static_cast<std::size_t>(raw_cells(l2)) * static_cast<std::size_t>(cell) : 0);
}
std::size_t single_bytes(int l, int cell) {
  return static_cast<std::size_t>(l) * static_cast<std::size_t>(kSingleT + l - 1) * static_cast<std::size_t>(cell);
}

}  // namespace

std::size_t shared_bytes_needed(int l1, int l2, int cell_bytes) {
  std::size_t m = double_reduction_bytes(l2, cell_bytes, !landing_optional(l2, cell_bytes));  // the smallest form
  const std::size_t pb = detail::patch_shared_bytes(l2, cell_bytes), sbytes = single_bytes(l1 > l2 ? l1 : l2, cell_bytes);
  if (pb == 0) return static_cast<std::size_t>(-1);  // too many tiles for one block
  if (pb + detail::patch_static_bytes() > m) m = pb + detail::patch_static_bytes();
  if (sbytes > m) m = sbytes;
  return m;
}

std::size_t max_shared_bytes(int device) {
  int v = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return static_cast<std::size_t>(v);
}

int term1_tile_width() { return kT; }
bool term1_landing(int max_l2, bool wide, std::size_t max_shared) {
  const int cell = wide ? 4 : 2;
  return !landing_optional(max_l2, cell) || double_reduction_bytes(max_l2, cell, true) <= max_shared;
}
int single_tile_width() { return kSingleT; }

// A launch's shared memory is sized for the batch's widest windows (BatchView::max_l2, max_l1); every
// block uses the part its own pair needs.
void launch_single_tables(const BatchView& b, const std::int64_t* prefix, std::int64_t items, void* stream) {
  if (items == 0) return;
  const int max_l = b.max_l2 > b.max_l1 ? b.max_l2 : b.max_l1;
  by_cell(b.wide, [&](auto cell) {
    using Cell = decltype(cell);
    launch(single_tables_kernel<Cell>, items, kThreadsSingle, single_bytes(max_l, sizeof(Cell)), stream, b, prefix);
  });
}

void launch_double_reduction(const BatchView& b, int d1, const std::int64_t* prefix, std::int64_t items,
                             void* stream) {
  if (items == 0) return;
  by_cell(b.wide, [&](auto cell) {
    using Cell = decltype(cell);
    const std::size_t bytes = double_reduction_bytes(b.max_l2, sizeof(Cell), b.term1_landing);
    // The balanced work split needs up to 17 band offsets and three segments' accumulators in registers
    // (16-bit cells); otherwise the pairing.
    if constexpr (sizeof(Cell) == 2) {
      if (balanced_for(b.max_l2, sizeof(Cell))) {
        if (b.term1_landing)
          launch(double_reduction_kernel<Cell, true>, items, kThreads1, bytes, stream, b, d1, prefix);
        else
          launch(double_reduction_kernel<Cell, true, false>, items, kThreads1, bytes, stream, b, d1, prefix);
        return;
      }
    }
    launch(double_reduction_kernel<Cell, false>, items, kThreads1, bytes, stream, b, d1, prefix);  // term1_landing
  });
}

void launch_sites(const BatchView& b, SiteOut* out, void* stream) {
  if (b.npairs == 0) return;
  by_cell(b.wide, [&](auto cell) {
    using Cell = decltype(cell);
    launch(sites_kernel<Cell>, b.npairs, kThreadsSite, 0, stream, b, out);
  });
}

}  // namespace screen::kernels::bpmax
