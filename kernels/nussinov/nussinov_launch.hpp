#pragma once
// Nussinov CUDA kernels: the launchers, declared in plain C++ so lib/stages/nussinov/cuda.cpp (g++)
// can call them. Tables on the device are the tile-packed half-open form of
// stages/nussinov/packed_layout.hpp (shared with the CPU compact path). The bifurcation there is a
// plain max-plus product over the shared index m, which is what the tiles compute.
// Cells: int16 while max_possible_score(n) fits; beyond it int16 relative to a per-tile 32-bit base
// (packed_layout.hpp, "relative cells") while the pair weights allow; else int32 (or when forced).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/default_init_allocator.hpp"
#include "stages/nussinov/nussinov_defs.hpp"
#include "stages/nussinov/packed_layout.hpp"

namespace screen::kernels::nussinov {

using screen::nussinov::packed::cell_offset;
using screen::nussinov::packed::kTile;
using screen::nussinov::packed::tile_count;
using screen::nussinov::packed::tile_index;
using screen::nussinov::packed::tiles_per_side;

// How the bifurcation's add-then-max is written (benchmarking knob; dpx is the default). On sm_90
// ptxas turns all three into the same VIADDMNMX instructions, so they time the same.
enum class AddMaxOp : int { dpx = 0, plain = 1, vimax3 = 2 };

struct Tuning {
  AddMaxOp op = AddMaxOp::dpx;
  int force_cell_bytes = 0;  // 0 = automatic (2 while the score bound fits int16), 2 or 4 to force
  bool force_relative = false;  // tiled engine: relative 16-bit cells even where plain ones fit (tests)
  // split-K: aim for this many waves of panel blocks on each diagonal (waves of the unpadded kernel,
  // 6 blocks an SM), and diagonals split into at most fused_slices slices skip the reduce kernel:
  // finalize maxes the slices as it loads them. H100 (nussinov_gpu_timing --fused, best of 3), waves 2
  // / 4 with the reduce kernel always: 10,000 nt 0.0111 / 0.0117 s, 26,000 nt 0.1239 / 0.1239 s; waves 2
  // with up to 16 slices fused: 0.0110 s, 0.1224 s, 37,000 nt 0.3332 s (every slice fused: 10,000 nt
  // 0.0114 s, the long finalize chain pays for the extra loads).
  int split_waves = 2;
  int fused_slices = 16;
  bool lookahead = true;     // run panel(d) beside finalize(d-1) (edge K tiles done in finalize)
  bool finalize_priority = true;   // the finalize stream at the highest stream priority
  int panel_blocks_per_sm = 4;     // 16-bit panel on small diagonals: at most this many blocks an SM (0: no cap)
  long long panel_cap_products = 1LL << 62;  // ... on diagonals of at most this many tile products (tiles x K tiles)
  // With the lookahead schedule panel(d + 1) needs only diagonals <= d - 1, not panel(d): with 2, the panels
  // of odd and even diagonals go to two streams, so that one may start while the other's last wave drains;
  // 1: every panel on one stream.
  int panel_streams = 2;
};
void set_tuning(const Tuning& t);
Tuning tuning();

// Cell width (2 or 4 bytes) for sequences up to max_n under p (and the forced width, if any): 2
// while max_possible_score fits int16 or relative cells apply, else 4.
int cell_bytes_for(int max_n, const screen::nussinov::Params& p);
// Whether the tiled engine keeps 2-byte cells relative to per-tile bases for a group whose longest
// sequence is max_n (the score bound does not fit int16, or forced).
bool relative_cells(int max_n, int cell_bytes, const screen::nussinov::Params& p);

// What a fold returns beside its scores: nothing more, every table copied back to the host (the tests
// compare them), or the structures, traced on the GPU (nussinov_traceback.hpp) so that no table comes back.
enum class FoldOutput { scores, tables, structures };

struct GroupOutput {
  int cell_bytes = 4;
  double tables_seconds = 0;  // host wall time waiting for the tables' copies after the kernels, for the logs
  std::vector<long long> scores;
  std::vector<std::string> structures;  // FoldOutput::structures: sequence k's dot-bracket structure
  // FoldOutput::tables: sequence k's tile-packed table is at table16[k] (16-bit cells) or table32[k]. They
  // point into tables16/32, or into registered host memory the calling thread keeps for its next
  // groups (the tiled path, when the group's tables fit it): valid until the thread's next group.
  // relative: 16-bit cells are offsets from their tile's base, tile_base[k][tile_index(I, J, nt)]
  // (packed_layout.hpp); the value of a cell is base + offset.
  bool relative = false;
  std::vector<const std::int32_t*> tile_base;
  std::vector<std::vector<std::int32_t>> tile_bases;
  std::vector<const std::int16_t*> table16;
  std::vector<const std::int32_t*> table32;
  std::vector<screen::UninitVector<std::int16_t>> tables16;
  std::vector<screen::UninitVector<std::int32_t>> tables32;
};

// Frees the calling thread's host tables (FoldOutput::tables) of a group larger than the memory it keeps
// for the next groups (GroupOutput's views into them die), once the caller is done with them.
void release_large_host_tables();

// Device bytes the tiled engine needs for these lengths (tables, scratch, sequences, and the GPU
// traceback's structures and stacks).
std::size_t tiled_bytes(const std::vector<int>& lengths, int cell_bytes, int device);
// About how much tiled_bytes grows when a sequence of n bases, no longer than the group's first, joins a
// group (its table, its tiles of a diagonal in each scratch buffer, codes, tile bases, indices), for
// planning groups one sequence at a time. The sum over a group's sequences may fall short of the group's
// tiled_bytes by at most the split-K target's tiles in each scratch buffer (nussinov.cu): check a group
// planned this way with tiled_bytes.
std::size_t tiled_bytes_added(int n, int cell_bytes);
// Tiled max-plus over the whole GPU, all sequences of the group at once (diagonal by diagonal of tiles).
void tiled_fold(const std::vector<const std::uint8_t*>& seqs, const std::vector<int>& lengths,
                const screen::nussinov::Params& p, int cell_bytes, FoldOutput what, GroupOutput& out, int device);

// Longest sequence the one-block-per-sequence shared-memory kernel takes at this cell width.
int smem_max_n(int cell_bytes);
// Device bytes smem_fold needs.
std::size_t smem_bytes(const std::vector<int>& lengths, int cell_bytes, FoldOutput what);
// One block per sequence, the whole table in shared memory; the tables come back tile-packed too.
void smem_fold(const std::vector<const std::uint8_t*>& seqs, const std::vector<int>& lengths,
               const screen::nussinov::Params& p, int cell_bytes, FoldOutput what, GroupOutput& out, int device);

}  // namespace screen::kernels::nussinov
