#pragma once
// BPMax tables on the GPU: the launchers, declared in plain C++ so that lib/stages/bpmax/cuda.cpp
// (g++) can call them. The recurrence is bpmax.md's, with bpmax_defs.hpp's conventions (reversed
// target z, windows L1, L2); the values equal the reference's cell for cell.
//
// Layout (device memory, per pair of a batch):
//   F: for each query interval (i1, d1), d1 < L1, in query_interval_index order, one slab of M rows of
//      `frow` = f_row_cells(L2) cells, one row per target interval start: row i2, column
//      j2 - (i2 & ~7) holds F(i1, i1 + d1, i2, j2), for j2 from the row's first end i2 & ~7 to
//      (i2 & ~7) + frow - 1, which reaches past the band's last end i2 + L2 - 1. Every cell of a row
//      outside the band (j2 < i2 or j2 >= i2 + L2) or the target (j2 >= M) holds minus infinity. So the
//      16-byte chunks of every row start at end columns that are multiples of 8: a kernel copies a row's
//      chunks unchanged (cp.async) into a shared-memory table with one row per interval start and
//      absolute end columns, which is what the double reduction's B operand and the patch-up's window
//      are, and the minus infinity outside the band comes with them.
//   S1 (query, window L1): L1 rows x stride1 columns, row d column i holds S1(i, i + d).
//   S2 (z, window L2): the F slabs' layout, M rows of f_row_cells(L2) cells, row i2 column j2 - (i2 & ~7)
//      holding S2(i2, j2), minus infinity outside the band and the target (so that the patch-up copies
//      its window's rows unchanged, as it does F's).
// All cells of a batch have one type: int16 when every score of every pair fits (max_possible_score
// <= kMax16, so that "minus infinity" kNeg16 plus any score stays negative and kNeg16 + kNeg16 does
// not wrap), int32 otherwise.
//
// Order of the launches for a batch: single_tables (S1 and S2 of every pair), then for d1 = 0, 1, ...
// the double-reduction kernel (base case, terms 1, 2, 3 and 6: shorter query intervals only) and the
// patch-up kernel (terms 4, 5 and 7: the slab's own shorter target intervals), then sites.
#include <cstddef>
#include <cstdint>

#include "common/host_device.hpp"
#include "common/pair_weights.hpp"

namespace screen::kernels::bpmax {

constexpr int kMax16 = 16383;           // largest score the 16-bit tables hold
constexpr std::int16_t kNeg16 = -16384;  // "minus infinity" of the 16-bit tables
constexpr std::int32_t kNeg32 = -(1 << 29);

// Shared memory needed by the kernels for a pair with query window l1, target window l2 and cell size
// `cell_bytes` (the double reduction and the patch-up size by l2 only, the single tables by the larger
// window); a pair that needs more than max_shared_bytes() is not for the GPU (the host routes it to the CPU).
std::size_t shared_bytes_needed(int l1, int l2, int cell_bytes);
std::size_t max_shared_bytes(int device);

// Cells of one F slab row for target window l2 (a multiple of 8, at least l2 + 7).
constexpr int f_row_cells(int l2) { return (l2 + 7 + 7) / 8 * 8; }

struct PairDesc {
  std::int32_t n = 0, m = 0;     // query and target lengths (both >= 1)
  std::int32_t l1 = 0, l2 = 0;   // effective windows
  std::int32_t stride1 = 0;      // columns of S1 rows (>= n)
  std::int64_t f = 0;            // first cell of the pair's F slabs in the batch's F buffer
  std::int64_t s1 = 0, s2 = 0;   // first cell of S1 and S2 in the batch's S buffer
  std::int64_t x = 0, z = 0;     // first code of the query and of the REVERSED target in the codes buffer
  // Device: for each query interval (query_interval_index), the query interval whose slab holds its
  // values, the first with the same bases (lib/stages/bpmax/repeated_slabs.hpp). Only those slabs are
  // computed (the work lists name them); every read of a slab goes through this map.
  const std::int32_t* slabs = nullptr;
};

struct SiteOut {
  std::int32_t score = 0;
  std::int32_t i1 = 0, i2 = 0;   // the site, first maximum in increasing i1 then i2
  std::int32_t query_single = 0; // S1(0, n-1) when l1 == n
  std::int32_t target_single = 0;// S2(0, m-1) when l2 == m
};

// Device pointers of one batch. cells: int16_t* or int32_t* by `wide`.
struct BatchView {
  const PairDesc* pairs = nullptr;    // device
  int npairs = 0;
  int max_l1 = 0;                     // largest query window of the batch (d1 runs below it)
  int max_l2 = 0;                     // largest target window of the batch
  const std::uint8_t* codes = nullptr;  // device
  void* f = nullptr;                  // device cells
  void* s = nullptr;                  // device cells (S1 and S2)
  bool wide = false;                  // int32 cells
  PairTable table{};                  // pair weights (units of 1/scale)
  int patch_width = 0;                // columns of a patch-up block: patch_tile_width(max_l2, wide, ...)
  bool term1_landing = true;          // the double reduction's form: term1_landing(max_l2, wide, ...)
};

// Per-d1 work lists of the two kernels, built on the host and passed as device arrays: npairs + 1 prefix
// counts of (slab, tile) work items by pair, then for each pair the position (in the same array) of the
// query starts i1 of its slabs in the list, ascending, then those starts (pairs of the same query may point
// at the same ones). A list holds some of a pair's slabs: the first occurrences of their bases
// (PairDesc::slabs), of one of the two groups by query end that the host runs on two streams
// (lib/stages/bpmax/cuda.cpp).
int term1_tile_width();
// Tiles `width` columns wide across a strand of n bases: the work items of one slab (or strand), counted
// the same way by the host's work lists and the kernels' decoding of them.
SCREEN_HD constexpr int tiles_across(int n, int width) { return (n + width - 1) / width; }
// Whether the double reduction's blocks have room for A's landing buffer (17 KB at W2 = 128) on a device
// with max_shared bytes of shared memory per block: then A's next rows land during the products, else the
// block reads them from global memory (GPUs with 99 KB a block).
bool term1_landing(int max_l2, bool wide, std::size_t max_shared);
// Columns of a patch-up block for a batch (its largest target window, its cell width) on a device with
// max_shared bytes of shared memory per block: the patch-up's work items, and BatchView::patch_width.
int patch_tile_width(int max_l2, bool wide, std::size_t max_shared);
int single_tile_width();

// S1 and S2 of every pair. prefix: device array of npairs*2+1 prefix counts of single-table tiles
// (strand 2p: the query of pair p, 2p+1: its target).
void launch_single_tables(const BatchView& b, const std::int64_t* prefix, std::int64_t items, void* stream);
// Base case and terms 1, 2, 3, 6 for the slabs of length d1 in the work list `prefix` (above): (slab,
// term1 tile) items.
void launch_double_reduction(const BatchView& b, int d1, const std::int64_t* prefix, std::int64_t items,
                             void* stream);
// Terms 4, 5, 7 for the slabs of length d1 in the work list (after launch_double_reduction for them).
void launch_patch_up(const BatchView& b, int d1, const std::int64_t* prefix, std::int64_t items, void* stream);
// The window bounds of lib/stages/bpmax/window_bounds.hpp for every pair (every query at most kMaxBoundQuery
// long), after launch_single_tables: prefix holds npairs + 1 prefix counts of blocks of kBoundWindows target
// windows by pair, then each pair's first index in out; out[first + i2] is window i2's bound.
constexpr int kBoundWindows = 128;
SCREEN_HD constexpr int bound_blocks(int m, int l2) { return tiles_across(m - l2 + 1, kBoundWindows); }
void launch_window_bounds(const BatchView& b, const std::int64_t* prefix, std::int64_t items, std::int32_t* out,
                          void* stream);
// The site of every pair into out[p] (device).
void launch_sites(const BatchView& b, SiteOut* out, void* stream);

}  // namespace screen::kernels::bpmax
