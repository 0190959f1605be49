#pragma once
// The fast CPU path of BPMax: the same tables as the reference (bpmax.md), exactly, computed as
// batched max-plus products over a diagonal-major banded layout, tiled for the caches, vectorised
// by g++ (16-bit cells when max_possible_score fits, 32-bit otherwise) and parallel with OpenMP.
//
// Layout (this path's own; bpmax_defs.hpp's Band still names the cells). Each query interval
// (i1, j1 = i1 + d1), d1 < L1, owns one "slab" of L2 rows x P columns: row d2 holds the cells
// F(i1, j1, i2, i2 + d2) for i2 = 0 .. M-1-d2 contiguously (the z intervals of length d2 + 1), with
// P = round_up(M, 16) + 16 so a vector may run past the last valid column. Slabs follow
// query_interval_index. Memory is query_interval_count(N, L1) x L2 x P cells, about
// N(N+1)/2 x M x W2 for W1 = N. S1 and S2 use the same diagonal-major rows.
//
// Why diagonal-major: for a fixed query split k1 and z split offset o = k2 - i2, term 1 of every
// cell of row d2 is  A[o][i2] + B[d2-o-1][i2+o+1]  (A = slab(i1, k1), B = slab(k1+1, j1)): two
// unit-stride rows, so the max-plus product of the two banded (i2 x j2) matrices is a sum over o
// of vector add + max on whole rows, and terms 2 to 7 are row operations too.
//
// Order. Query intervals by increasing d1 (all slabs of one d1 in parallel): first terms 1, 2, 3
// and 6, which read only shorter query intervals, tile by tile (tiles of i2, in parallel, k1
// accumulated into the tile); then terms 4, 5 and 7, which read the slab itself, by increasing d2
// with tiles from the right (a cell's sub-intervals lie at or right of its i2).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/default_init_allocator.hpp"
#include "stages/bpmax/reference.hpp"

namespace screen::bpmax {

// Whether the CPU path stores 16-bit cells for this pair (max_possible_score(L1, L2) fits).
bool cpu_uses_16bit(int n, int m, const Params& p);

// Bytes of the CPU path's tables for one pair (F, S1, S2 and the target pair weights), with a slab for every
// query interval: an upper bound, since repeats of a query substring share one slab (repeated_slabs.hpp).
std::size_t cpu_table_bytes(int n, int m, const Params& p);

// Max-plus updates of the double reduction (term 1) the recurrence makes on the banded tables:
// [sum over d1 < L1 of (N - d1) d1] x [sum over d2 < L2 of (M - d2) d2]. About (N^3/6) x M x W2^2/2
// for W1 = N, W2 << M; the bench's GOPS divide this by the time.
double term1_updates(int n, int m, const Params& p);

class CpuTables final : public TableView {
 public:
  // x: query codes (N), y: target codes in forward order (M). threads <= 0: OpenMP's default;
  // 1 runs without a parallel region (for callers that parallelise across pairs).
  CpuTables(const std::uint8_t* x, int n, const std::uint8_t* y, int m, const Params& p, int threads = 0);
  ~CpuTables() override;
  CpuTables(const CpuTables&) = delete;
  CpuTables& operator=(const CpuTables&) = delete;

  const Band& band() const override { return band_; }
  const PairTable& pair_table() const override { return table_; }
  const std::vector<std::uint8_t>& query() const override { return x_; }
  const std::vector<std::uint8_t>& reversed_target() const override { return z_; }
  std::int32_t F(int i1, int j1, int i2, int j2) const override;
  std::int32_t S1(int i, int j) const override;
  std::int32_t S2(int i, int j) const override;

  const Params& params() const { return params_; }
  bool narrow() const { return narrow_; }  // 16-bit cells

 private:
  template <class Cell>
  void fill(int threads);
  // First cell of query interval (i1, i1 + d1)'s slab (a repeat's is its first occurrence's).
  std::size_t slab_offset(int i1, int d1) const;
  std::size_t f_offset(int i1, int j1, int i2, int j2) const;

  Params params_;
  PairTable table_;
  Band band_;
  std::vector<std::uint8_t> x_, z_;
  bool narrow_ = true;
  int stride_ = 0;   // P: cells per row of F slabs, S2 and the z weights
  int stride1_ = 0;  // cells per row of S1
  std::size_t slab_cells_ = 0;
  // For each query interval (query_interval_index), its slab in F: repeats of a query substring share the
  // slab of its first occurrence (repeated_slabs.hpp), stored once; slabs are numbered by first occurrence.
  std::vector<std::int32_t> slab_index_;
  std::vector<std::vector<int>> firsts_;  // per d1, the query starts whose slabs are computed
  // One of the two sets is used, by narrow_.
  // F: zeroed in parallel by fill()'s threads (first touch), not by resize().
  UninitVector<std::int16_t> f16_;
  UninitVector<std::int32_t> f32_;
  std::vector<std::int16_t> s1_16_, s2_16_;
  std::vector<std::int32_t> s1_32_, s2_32_;
};

// Site, optional fields and traceback as find_site / interact_reference, through the CPU tables.
SiteResult interact_cpu(const std::uint8_t* x, int n, const std::uint8_t* y, int m, const Params& p,
                        bool with_traceback, int threads = 0);

}  // namespace screen::bpmax
