// The fast CPU path of BPMax; the layout and the order of the passes are described in cpu.hpp.
//
// Every kernel is a loop over one row segment of unit-stride cells, `c[i] = max(c[i], a[i] + b[i])`
// (or `+ scalar`), which g++ -O3 turns into packed add + max (16 lanes of int16 with AVX2). The
// kernels are compiled twice (AVX2 and the x86-64 baseline) and chosen at load time.
//
// Values of cells outside the band (columns i2 >= M - d2 of row d2, the padding) are computed
// too, because a vector covers them, but no cell inside the band ever reads one: a cell reads only
// sub-intervals of its own interval. They may wrap around in 16 bits; that is harmless (unsigned
// arithmetic semantics of the narrowing conversion, no undefined behaviour).
#include "stages/bpmax/cpu.hpp"

#include <omp.h>

#include <algorithm>
#include <limits>
#include <type_traits>

#include "stages/bpmax/repeated_slabs.hpp"

namespace screen::bpmax {

#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__))
#define SCREEN_BPMAX_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SCREEN_BPMAX_CLONES
#endif

namespace {

constexpr int kAlign = 16;  // vector granularity in cells: rows are padded by this much
constexpr int kTile = 256;  // i2 columns per tile (a multiple of kAlign)

constexpr int round_up(int v, int k) { return (v + k - 1) / k * k; }
// Cells per row: the row, rounded to vectors, plus one vector of padding; one more when that is a
// multiple of 64 cells, because the column-block kernels walk down the rows of a slab, and rows a large
// power of two of bytes apart fall on a few cache sets (1,024 cells, 2 KB of 16-bit cells, left two of
// the L1 cache's 64 sets; `screen bench bpmax --quick`, 23 x 1,000 at W2 = 128 on one thread of the
// development machine: 1.33-1.54 s without the extra vector, 0.90-1.28 s with it).
int row_stride(int len) {
  const int stride = round_up(len, kAlign) + kAlign;
  return stride % 64 == 0 ? stride + kAlign : stride;
}

// ---- row kernels --------------------------------------------------------------------------------

template <class Cell>
inline Cell cmax(Cell a, Cell b) {
  return a > b ? a : b;
}

// c[i] = max(c[i], a[i] + b[i]), i < len.
template <class Cell>
inline void mp1(Cell* __restrict c, const Cell* __restrict a, const Cell* __restrict b, int len) {
  for (int i = 0; i < len; ++i) c[i] = cmax(c[i], static_cast<Cell>(a[i] + b[i]));
}

// c[i] = max(c[i], a0[i] + b0[i], ..., a3[i] + b3[i]): four terms per load/store of c.
template <class Cell>
inline void mp4(Cell* __restrict c, const Cell* __restrict a0, const Cell* __restrict b0, const Cell* __restrict a1,
                const Cell* __restrict b1, const Cell* __restrict a2, const Cell* __restrict b2,
                const Cell* __restrict a3, const Cell* __restrict b3, int len) {
  for (int i = 0; i < len; ++i) {
    const Cell v0 = static_cast<Cell>(a0[i] + b0[i]), v1 = static_cast<Cell>(a1[i] + b1[i]);
    const Cell v2 = static_cast<Cell>(a2[i] + b2[i]), v3 = static_cast<Cell>(a3[i] + b3[i]);
    c[i] = cmax(cmax(c[i], cmax(v0, v1)), cmax(v2, v3));
  }
}

// c[i] = max(c[i], a[i] + s).
template <class Cell>
inline void mps(Cell* __restrict c, const Cell* __restrict a, Cell s, int len) {
  for (int i = 0; i < len; ++i) c[i] = cmax(c[i], static_cast<Cell>(a[i] + s));
}

// The end (exclusive, vector-rounded) of the columns of row d of a tile [i0, iend) that hold cells
// of the band: i2 < m - d.
inline int row_end(int iend, int m, int d) { return std::min(iend, round_up(m - d, kAlign)); }

// One column block: kAlign cells of a row as one vector (two AVX2 registers for 32-bit cells).
// Sums wrap as the scalar kernels' narrowing does (unsigned lanes), maxima are signed.
// (GCC's vector_size needs concrete element types, hence the two lane sets.) The helpers are always
// inlined into the kernels' AVX2 and baseline clones, so no vector crosses a call (g++'s -Wpsabi note
// about such calls is off for this file: lib/stages/bpmax/CMakeLists.txt).
typedef std::int16_t BlockI16 __attribute__((vector_size(kAlign * 2)));
typedef std::uint16_t BlockU16 __attribute__((vector_size(kAlign * 2)));
typedef std::int32_t BlockI32 __attribute__((vector_size(kAlign * 4)));
typedef std::uint32_t BlockU32 __attribute__((vector_size(kAlign * 4)));
template <class Cell>
struct Block {
  using V = std::conditional_t<sizeof(Cell) == 2, BlockI16, BlockI32>;
  using U = std::conditional_t<sizeof(Cell) == 2, BlockU16, BlockU32>;
  __attribute__((always_inline)) static V load(const Cell* p) {
    V v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
  }
  __attribute__((always_inline)) static void store(Cell* p, V v) { __builtin_memcpy(p, &v, sizeof v); }
  __attribute__((always_inline)) static V add(V a, V b) { return (V)((U)a + (U)b); }
  __attribute__((always_inline)) static V max(V a, V b) { return a > b ? a : b; }
};

// Terms 1, 2 and 3 for one query split on rows [d2, d2 + R) of one column block (cells i2 = cb ..
// cb + 15):
//   C[d][i2] = max(A[d][i2] + sa, B[d][i2] + sb, max over o < d of A[o][i2] + B[d-o-1][i2+o+1]),
// sa = S1(k1 + 1, j1) and sb = S1(i1, k1). The R rows' accumulators stay in registers across o and
// share each A load (a register-blocked max-plus product): per o, one load of A and R of B for R
// add + max pairs. R = 1 is the plain row.
template <class Cell, int R>
__attribute__((always_inline)) inline void term1_rows(Cell* c, const Cell* a, const Cell* b, Cell sa, Cell sb,
                                                      std::ptrdiff_t p, int d2, int cb) {
  using B = Block<Cell>;
  typename B::V acc[R];
  const typename B::V va = sa - typename B::V{}, vb = sb - typename B::V{};  // the scalars in every lane
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    const std::ptrdiff_t at = (d2 + r) * p + cb;
    acc[r] = B::max(B::load(c + at), B::max(B::add(B::load(a + at), va), B::add(B::load(b + at), vb)));
  }
  // Offsets, not pointers: the one of B's row d2 - o - 1 runs below row 0 in the last steps, where
  // only the rows r that bring it back into the slab read it.
  std::ptrdiff_t ao = cb;                      // A[o][cb]
  std::ptrdiff_t bo = (d2 - 1) * p + cb + 1;  // B[d2-o-1][cb+o+1]; row r adds r p
  int o = 0;
  for (; o < d2; ++o, ao += p, bo += 1 - p) {  // o < d2 <= every row's d: all R rows take it
    const typename B::V av = B::load(a + ao);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) acc[r] = B::max(acc[r], B::add(av, B::load(b + (bo + r * p))));
  }
  // o = d2 + t, t < R - 1: only rows r > t take it (a fixed triangle, unrolled without branches).
#pragma GCC unroll 8
  for (int t = 0; t < R - 1; ++t, ao += p, bo += 1 - p) {
    const typename B::V av = B::load(a + ao);
#pragma GCC unroll 8
    for (int r = t + 1; r < R; ++r) acc[r] = B::max(acc[r], B::add(av, B::load(b + (bo + r * p))));
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) B::store(c + (d2 + r) * p + cb, acc[r]);
}

// Terms 1, 2 and 3 for one query split over the tile [i0, iend) of C, by column blocks: in block cb,
// the rows d2 whose band reaches it (i2 = cb < m - d2, as row_end) in groups of R, the first few one
// by one (row 0 has terms 2 and 3 only).
// Cells past a row's band inside its last block are computed too (see the file comment).
template <class Cell>
__attribute__((always_inline)) inline void term1_tile(Cell* c, const Cell* a, const Cell* b, Cell sa, Cell sb, int stride, int l2,
                                                      int m, int i0, int iend) {
  constexpr int R = sizeof(Cell) == 2 ? 8 : 4;  // accumulators: R vectors of 16 and 32-bit cells fit 16 registers
  const std::ptrdiff_t p = stride;
  for (int cb = i0; cb < iend; cb += kAlign) {
    const int dend = std::min(l2, m - cb);  // rows d2 < dend reach the block
    // The rows left over by the groups are the shortest (from d2 = 0), not the longest.
    const int singles = dend > 0 ? dend % R : 0;
    int d2 = 0;
    for (; d2 < singles; ++d2) term1_rows<Cell, 1>(c, a, b, sa, sb, p, d2, cb);
    for (; d2 + R <= dend; d2 += R) term1_rows<Cell, R>(c, a, b, sa, sb, p, d2, cb);
  }
}

// C[d][i2] = max(C[d][i2], A[d][i2] + s) over the tile's rows: terms 2, 3 and 6.
template <class Cell>
inline void add_scalar_tile(Cell* c, const Cell* a, Cell s, int stride, int l2, int m, int i0, int iend) {
  const std::ptrdiff_t p = stride;
  for (int d = 0; d < l2; ++d) {
    const int hi = row_end(iend, m, d);
    if (hi <= i0) break;
    mps(c + d * p + i0, a + d * p + i0, s, hi - i0);
  }
}

// Terms 4, 5 and 7 of row d2 >= 1 of slab C over the columns [i0, iend):
//   4: C[o][i2] + S2[d2-o-1][i2+o+1],  5: S2[o][i2] + C[d2-o-1][i2+o+1],  o < d2;
//   7: Wz[d2][i2] + C[d2-2][i2+1] when d2 > kMinLoop.
// Every row read is shorter than d2, so finished. Two forms: short rows (up to kBlockedRowCells, as in
// a traceback's window) by column blocks, each in two registers across all o; longer rows as whole-row
// passes, two o at a time (the blocks' walk down the rows, one cache line per row and stream, made terms
// 4 and 5 48% of a 23 x 1,000 fold's perf samples, against 16% with whole-row passes).
constexpr int kBlockedRowCells = 128;
template <class Cell>
__attribute__((always_inline)) inline void inner_row(Cell* c, const Cell* s2, const Cell* wz, int stride, int d2, int m,
                                                     int i0, int iend) {
  using B = Block<Cell>;
  const std::ptrdiff_t p = stride;
  const int hi = row_end(iend, m, d2);
  if (hi <= i0) return;
  const int len = hi - i0;
  if (len <= kBlockedRowCells) {
    for (int cb = i0; cb < hi; cb += kAlign) {
      typename B::V t4 = B::load(c + d2 * p + cb), t5 = t4;
      std::ptrdiff_t lo = cb, sh = (d2 - 1) * p + cb + 1;  // row o at cb; row d2 - o - 1 at cb + o + 1
      for (int o = 0; o < d2; ++o, lo += p, sh += 1 - p) {
        t4 = B::max(t4, B::add(B::load(c + lo), B::load(s2 + sh)));
        t5 = B::max(t5, B::add(B::load(s2 + lo), B::load(c + sh)));
      }
      if (d2 > kMinLoop) t4 = B::max(t4, B::add(B::load(wz + d2 * p + cb), B::load(c + ((d2 - 2) * p + cb + 1))));
      B::store(c + d2 * p + cb, B::max(t4, t5));
    }
    return;
  }
  Cell* cr = c + d2 * p + i0;
  int o = 0;
  for (; o + 2 <= d2; o += 2) {
    mp4(cr, c + o * p + i0, s2 + (d2 - o - 1) * p + i0 + o + 1, s2 + o * p + i0, c + (d2 - o - 1) * p + i0 + o + 1,
        c + (o + 1) * p + i0, s2 + (d2 - o - 2) * p + i0 + o + 2, s2 + (o + 1) * p + i0,
        c + (d2 - o - 2) * p + i0 + o + 2, len);
  }
  for (; o < d2; ++o) {
    mp1(cr, c + o * p + i0, s2 + (d2 - o - 1) * p + i0 + o + 1, len);
    mp1(cr, s2 + o * p + i0, c + (d2 - o - 1) * p + i0 + o + 1, len);
  }
  if (d2 > kMinLoop) mp1(cr, wz + d2 * p + i0, c + (d2 - 2) * p + i0 + 1, len);
}

// One strand's Nussinov table S (min_loop 3, intervals shorter than l) in diagonal-major rows:
// S[d][i] = S(i, i + d). w: the pair weights w(s_i, s_{i+d}) in the same rows. Zeroed on entry.
template <class Cell>
inline void single_table(Cell* out, const Cell* w, int n, int l, int stride) {
  const std::ptrdiff_t p = stride;
  for (int d = kMinLoop + 1; d < l; ++d) {
    const int hi = row_end(round_up(n, kAlign), n, d);
    Cell* row = out + d * p;
    const Cell* inside = out + (d - 2) * p + 1;  // S(i+1, j-1)
    const Cell* wr = w + d * p;
    for (int i = 0; i < hi; ++i) row[i] = static_cast<Cell>(wr[i] + inside[i]);
    int o = 0;
    for (; o + 4 <= d; o += 4)
      mp4(row, out + o * p, out + (d - o - 1) * p + o + 1, out + (o + 1) * p, out + (d - o - 2) * p + o + 2,
          out + (o + 2) * p, out + (d - o - 3) * p + o + 3, out + (o + 3) * p, out + (d - o - 4) * p + o + 4, hi);
    for (; o < d; ++o) mp1(row, out + o * p, out + (d - o - 1) * p + o + 1, hi);
  }
}

// Non-template entry points, compiled for AVX2 and the baseline.
#define SCREEN_BPMAX_KERNELS(Cell)                                                                                   \
  SCREEN_BPMAX_CLONES void k_term1(Cell* c, const Cell* a, const Cell* b, Cell sa, Cell sb, int stride, int l2,     \
                                   int m, int i0, int iend) {                                                        \
    term1_tile(c, a, b, sa, sb, stride, l2, m, i0, iend);                                                            \
  }                                                                                                                  \
  SCREEN_BPMAX_CLONES void k_add_scalar(Cell* c, const Cell* a, Cell s, int stride, int l2, int m, int i0,           \
                                        int iend) {                                                                  \
    add_scalar_tile(c, a, s, stride, l2, m, i0, iend);                                                               \
  }                                                                                                                  \
  SCREEN_BPMAX_CLONES void k_inner_row(Cell* c, const Cell* s2, const Cell* wz, int stride, int d2, int m, int i0,   \
                                       int iend) {                                                                   \
    inner_row(c, s2, wz, stride, d2, m, i0, iend);                                                                   \
  }                                                                                                                  \
  SCREEN_BPMAX_CLONES void k_single(Cell* out, const Cell* w, int n, int l, int stride) {                            \
    single_table(out, w, n, l, stride);                                                                              \
  }

SCREEN_BPMAX_KERNELS(std::int16_t)
SCREEN_BPMAX_KERNELS(std::int32_t)
#undef SCREEN_BPMAX_KERNELS

// Pair weights w(s_i, s_{i+d}) in diagonal-major rows (d < l), zero outside the strand.
template <class Cell>
std::vector<Cell> pair_weight_rows(const std::vector<std::uint8_t>& s, int l, int stride, const PairTable& t) {
  const int n = static_cast<int>(s.size());
  std::vector<Cell> w(static_cast<std::size_t>(l) * static_cast<std::size_t>(stride), 0);
  for (int d = kMinLoop + 1; d < l; ++d)
    for (int i = 0; i + d < n; ++i)
      w[static_cast<std::size_t>(d) * stride + i] = static_cast<Cell>(t.at(s[static_cast<std::size_t>(i)], s[static_cast<std::size_t>(i + d)]));
  return w;
}

template <class Cell, class V16, class V32>
auto& pick(V16& narrow, V32& wide) {
  if constexpr (std::is_same_v<Cell, std::int16_t>)
    return narrow;
  else
    return wide;
}

}  // namespace

bool cpu_uses_16bit(int n, int m, const Params& p) {
  const Band b = make_band(std::max(n, 0), std::max(m, 0), p);
  return max_possible_score(b.l1, b.l2, p.weights) <= std::numeric_limits<std::int16_t>::max();
}

std::size_t cpu_table_bytes(int n, int m, const Params& p) {
  const Band b = make_band(std::max(n, 0), std::max(m, 0), p);
  if (b.n == 0 || b.m == 0) return 0;
  const std::size_t cell = cpu_uses_16bit(n, m, p) ? 2 : 4;
  const std::size_t stride = static_cast<std::size_t>(row_stride(b.m));
  const std::size_t slabs = static_cast<std::size_t>(query_interval_count(b.n, b.l1));
  const std::size_t rows = slabs * static_cast<std::size_t>(b.l2) + 2 * static_cast<std::size_t>(b.l2);  // F, S2, Wz
  return cell * (rows * stride + 2 * static_cast<std::size_t>(b.l1) * static_cast<std::size_t>(row_stride(b.n)));
}

double term1_updates(int n, int m, const Params& p) {
  const Band b = make_band(std::max(n, 0), std::max(m, 0), p);
  double q = 0, t = 0;
  for (int d1 = 0; d1 < b.l1; ++d1) q += static_cast<double>(b.n - d1) * d1;
  for (int d2 = 0; d2 < b.l2; ++d2) t += static_cast<double>(b.m - d2) * d2;
  return q * t;
}

CpuTables::CpuTables(const std::uint8_t* x, int n, const std::uint8_t* y, int m, const Params& p, int threads)
    : params_(p), table_(make_pair_table(p.weights)), band_(make_band(std::max(n, 0), std::max(m, 0), p)) {
  x_.assign(x, x + band_.n);
  z_.resize(static_cast<std::size_t>(band_.m));
  for (int t = 0; t < band_.m; ++t) z_[static_cast<std::size_t>(t)] = y[reversed_index(band_.m, t)];
  narrow_ = cpu_uses_16bit(band_.n, band_.m, p);
  if (band_.n == 0 || band_.m == 0) return;
  stride_ = row_stride(band_.m);
  stride1_ = row_stride(band_.n);
  slab_cells_ = static_cast<std::size_t>(band_.l2) * static_cast<std::size_t>(stride_);
  {
    RepeatedSlabs r = repeated_slabs(x_.data(), band_.n, band_.l1);
    slab_index_.resize(r.slab.size());
    std::int32_t stored = 0;
    for (std::size_t q = 0; q < r.slab.size(); ++q)  // a first occurrence's index is at most its repeats'
      slab_index_[q] = r.slab[q] == static_cast<std::int32_t>(q) ? stored++ : slab_index_[static_cast<std::size_t>(r.slab[q])];
    firsts_ = std::move(r.firsts);
  }
  if (narrow_)
    fill<std::int16_t>(threads);
  else
    fill<std::int32_t>(threads);
}

CpuTables::~CpuTables() = default;


template <class Cell>
void CpuTables::fill(int threads) {
  const int n = band_.n, m = band_.m, l1 = band_.l1, l2 = band_.l2;
  const int stride = stride_;
  std::size_t slabs = 0;  // stored: first occurrences only
  for (const auto& starts : firsts_) slabs += starts.size();
  UninitVector<Cell>& f = pick<Cell>(f16_, f32_);
  std::vector<Cell>& s1 = pick<Cell>(s1_16_, s1_32_);
  std::vector<Cell>& s2 = pick<Cell>(s2_16_, s2_32_);

  // Single-strand tables.
  {
    const std::vector<Cell> w1 = pair_weight_rows<Cell>(x_, l1, stride1_, table_);
    s1.assign(static_cast<std::size_t>(l1) * static_cast<std::size_t>(stride1_), 0);
    k_single(s1.data(), w1.data(), n, l1, stride1_);
  }
  const std::vector<Cell> wz = pair_weight_rows<Cell>(z_, l2, stride, table_);
  s2.assign(slab_cells_, 0);
  k_single(s2.data(), wz.data(), m, l2, stride);

  f.clear();
  f.resize(slabs * slab_cells_);  // unwritten: zeroed below by the threads that fill it
  Cell* const fd = f.data();
  const Cell* const s2d = s2.data();
  const Cell* const wzd = wz.data();
  auto slab = [&](int i1, int d1) { return fd + slab_offset(i1, d1); };
  auto s1v = [&](int i, int j) { return s1[static_cast<std::size_t>(j - i) * stride1_ + i]; };
  auto wx = [&](int a, int c) { return static_cast<Cell>(table_.at(x_[static_cast<std::size_t>(a)], x_[static_cast<std::size_t>(c)])); };

  const int ntiles = (round_up(m, kAlign) + kTile - 1) / kTile;
  auto tile_begin = [&](int t) { return t * kTile; };
  auto tile_end = [&](int t) { return std::min((t + 1) * kTile, round_up(m, kAlign)); };

  if (threads <= 0) threads = omp_get_max_threads();
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    const int team = omp_get_num_threads();
    // Zeroing the table serially (and faulting its pages in on one thread) took 14% of a pair's time.
#pragma omp for schedule(static)
    for (long long sl = 0; sl < static_cast<long long>(slabs); ++sl)
      std::fill_n(fd + static_cast<std::size_t>(sl) * slab_cells_, slab_cells_, Cell{0});
    for (int d1 = 0; d1 < l1; ++d1) {
      // The slabs of length d1 to compute: first occurrences of their bases (the others read theirs).
      const std::vector<int>& starts = firsts_[static_cast<std::size_t>(d1)];
      const int nslabs = static_cast<int>(starts.size());
      // Terms 1, 2, 3 and 6 (the base row for d1 = 0): shorter query intervals only.
#pragma omp for schedule(dynamic, 1)
      for (int item = 0; item < nslabs * ntiles; ++item) {
        const int i1 = starts[static_cast<std::size_t>(item / ntiles)], t = item % ntiles;
        const int j1 = i1 + d1;
        const int i0 = tile_begin(t), iend = tile_end(t);
        Cell* c = slab(i1, d1);
        if (d1 == 0) {
          for (int i2 = i0; i2 < std::min(iend, m); ++i2)
            c[i2] = static_cast<Cell>(table_.at(x_[static_cast<std::size_t>(i1)], z_[static_cast<std::size_t>(i2)]));
          continue;
        }
        for (int k1 = i1; k1 < j1; ++k1) {
          const Cell* a = slab(i1, k1 - i1);
          const Cell* b = slab(k1 + 1, j1 - k1 - 1);
          k_term1(c, a, b, s1v(k1 + 1, j1), s1v(i1, k1), stride, l2, m, i0, iend);  // terms 1, 2 and 3
        }
        if (d1 > kMinLoop) k_add_scalar(c, slab(i1 + 1, d1 - 2), wx(i1, j1), stride, l2, m, i0, iend);
      }
      // Terms 4, 5 and 7: the slab's own shorter z intervals, by increasing d2.
      if (nslabs >= team) {
#pragma omp for schedule(dynamic, 1)
        for (int k = 0; k < nslabs; ++k) {
          Cell* c = slab(starts[static_cast<std::size_t>(k)], d1);
          for (int t = ntiles - 1; t >= 0; --t)
            for (int d2 = 1; d2 < l2; ++d2) k_inner_row(c, s2d, wzd, stride, d2, m, tile_begin(t), tile_end(t));
        }
      } else {
        for (const int i1 : starts) {
          Cell* c = slab(i1, d1);
          for (int d2 = 1; d2 < l2; ++d2) {
#pragma omp for schedule(dynamic, 1)
            for (int t = 0; t < ntiles; ++t) k_inner_row(c, s2d, wzd, stride, d2, m, tile_begin(t), tile_end(t));
          }
        }
      }
    }
  }
}

std::size_t CpuTables::slab_offset(int i1, int d1) const {
  const std::size_t q = static_cast<std::size_t>(query_interval_index(band_.n, i1, d1));
  return static_cast<std::size_t>(slab_index_[q]) * slab_cells_;
}

std::size_t CpuTables::f_offset(int i1, int j1, int i2, int j2) const {
  return slab_offset(i1, j1 - i1) +
         static_cast<std::size_t>(j2 - i2) * static_cast<std::size_t>(stride_) + static_cast<std::size_t>(i2);
}

std::int32_t CpuTables::F(int i1, int j1, int i2, int j2) const {
  const std::size_t k = f_offset(i1, j1, i2, j2);
  return narrow_ ? f16_[k] : f32_[k];
}

std::int32_t CpuTables::S1(int i, int j) const {
  const std::size_t k = static_cast<std::size_t>(j - i) * static_cast<std::size_t>(stride1_) + static_cast<std::size_t>(i);
  return narrow_ ? s1_16_[k] : s1_32_[k];
}

std::int32_t CpuTables::S2(int i, int j) const {
  const std::size_t k = static_cast<std::size_t>(j - i) * static_cast<std::size_t>(stride_) + static_cast<std::size_t>(i);
  return narrow_ ? s2_16_[k] : s2_32_[k];
}

SiteResult interact_cpu(const std::uint8_t* x, int n, const std::uint8_t* y, int m, const Params& p,
                        bool with_traceback, int threads) {
  const CpuTables t(x, n, y, m, p, threads);
  return find_site(static_cast<const TableView&>(t), with_traceback);
}

}  // namespace screen::bpmax
