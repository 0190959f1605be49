#pragma once
// Nussinov CUDA kernels: the launchers, declared in plain C++ so lib/stages/nussinov/cuda.cpp (g++)
// can call them. Tables on the device use the half-open form of nussinov.md's recurrence:
//   M(i, j) = N(i, j-1) for 0 <= i < j <= n, M(i, i) = 0, and
//   M(i, j) = max( max_{i<m<j} M(i, m) + M(m, j),  M(i+1, j-1) + w(x_i, x_{j-1}) if (i, j-1) may pair ).
// The bifurcation then is a plain max-plus product over the shared index m (Chang's form with the
// two unpaired cases folded in: m = i+1 and m = j-1 give them), which is what the tiles compute.
//
// Storage ("tile-packed"): the (n+1) x (n+1) upper triangle of M cut into kTile x kTile tiles;
// tile (I, J), I <= J, is kTile * kTile cells, row-major, at tile_index(I, J, nt) * kTile^2.
// Cells are int16 while max_possible_score(n) fits, int32 beyond (or when forced).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/default_init_allocator.hpp"
#include "stages/nussinov/nussinov_defs.hpp"

namespace screen::kernels::nussinov {

constexpr int kTile = 64;

inline int tiles_per_side(int n) { return (n + 1 + kTile - 1) / kTile; }
inline std::size_t tile_count(int nt) { return static_cast<std::size_t>(nt) * static_cast<std::size_t>(nt + 1) / 2; }
inline std::size_t tile_index(int I, int J, int nt) {
  const auto i = static_cast<long long>(I);
  return static_cast<std::size_t>(i * nt - i * (i - 1) / 2 + (J - I));
}
// Offset of M(i, j), i <= j, in one sequence's tile-packed table.
inline std::size_t cell_offset(int i, int j, int nt) {
  return tile_index(i / kTile, j / kTile, nt) * kTile * kTile + static_cast<std::size_t>(i % kTile) * kTile +
         static_cast<std::size_t>(j % kTile);
}

// How the bifurcation's add-then-max is written (benchmarking knob; dpx is the default). On sm_90
// ptxas turns all three into the same VIADDMNMX instructions, so they time the same.
enum class AddMaxOp : int { dpx = 0, plain = 1, vimax3 = 2 };

struct Tuning {
  AddMaxOp op = AddMaxOp::dpx;
  int force_cell_bytes = 0;  // 0 = automatic (2 while the score bound fits int16), 2 or 4 to force
  int split_waves = 2;       // split-K: aim for this many waves of panel blocks on each diagonal
  bool lookahead = true;     // run panel(d) beside finalize(d-1) (edge K tiles done in finalize)
};
void set_tuning(const Tuning& t);
Tuning tuning();

// Cell width (2 or 4 bytes) for sequences up to max_n under p (and the forced width, if any).
int cell_bytes_for(int max_n, const screen::nussinov::Params& p);

// The tables of one launch group, copied back when asked (tile-packed, as above, per sequence).
struct GroupOutput {
  int cell_bytes = 4;
  double tables_seconds = 0;  // host wall time waiting for the tables' copies after the kernels, for the logs
  std::vector<long long> scores;
  // keep_tables: sequence k's tile-packed table is at table16[k] (16-bit cells) or table32[k]. They
  // point into tables16/32, or into registered host memory the calling thread keeps for its next
  // groups (the tiled path, when the group's tables fit it): valid until the thread's next group.
  std::vector<const std::int16_t*> table16;
  std::vector<const std::int32_t*> table32;
  std::vector<screen::UninitVector<std::int16_t>> tables16;
  std::vector<screen::UninitVector<std::int32_t>> tables32;
};

// Frees the calling thread's host tables of a group larger than the memory it keeps for the next
// groups (GroupOutput's views into them die), once their tracebacks are done.
void release_large_host_tables();

// Device bytes the tiled engine needs for these lengths (tables, scratch, sequences).
std::size_t tiled_bytes(const std::vector<int>& lengths, int cell_bytes, int device);
// Tiled max-plus over the whole GPU, all sequences of the group at once (diagonal by diagonal of tiles).
void tiled_fold(const std::vector<const std::uint8_t*>& seqs, const std::vector<int>& lengths,
                const screen::nussinov::Params& p, int cell_bytes, bool keep_tables, GroupOutput& out, int device);

// Longest sequence the one-block-per-sequence shared-memory kernel takes at this cell width.
int smem_max_n(int cell_bytes);
// Device bytes smem_fold needs.
std::size_t smem_bytes(const std::vector<int>& lengths, int cell_bytes, bool keep_tables);
// One block per sequence, the whole table in shared memory; the tables come back tile-packed too.
void smem_fold(const std::vector<const std::uint8_t*>& seqs, const std::vector<int>& lengths,
               const screen::nussinov::Params& p, int cell_bytes, bool keep_tables, GroupOutput& out, int device);

}  // namespace screen::kernels::nussinov
