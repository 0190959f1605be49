#pragma once
// Structures of a group's folds traced on the GPU from their tile-packed tables (nussinov_launch.hpp's
// layout), with the cases and order of lib/stages/nussinov/traceback.hpp, so that the tables never
// come back to the host: a fold's table is n^2 bytes or more, its structure n.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "stages/nussinov/nussinov_defs.hpp"

namespace screen::kernels::nussinov {

// A group's tables and sequences on the device, sequence k (k < count) at these offsets.
struct DeviceTables {
  const void* cells = nullptr;             // every table, tile-packed
  int cell_bytes = 2;                      // 2 or 4
  const std::int32_t* tile_base = nullptr; // relative 16-bit cells: tile bases, sequence k's from tab_off[k] / kTile^2; else null
  const std::size_t* tab_off = nullptr;    // cells before sequence k's table
  const std::uint8_t* codes = nullptr;
  const std::size_t* code_off = nullptr;   // sequence k's codes at codes + code_off[k]
  int count = 0;
};

// Device bytes trace_structures needs for a fold of n bases (its structure and its stack).
std::size_t trace_bytes(int n);

// The structures (dot-bracket) of the group's sequences, lengths[k] bases each, in the group's order.
// Throws Error(internal) if a table does not reproduce its values (as the host traceback does).
std::vector<std::string> trace_structures(const DeviceTables& t, const std::vector<int>& lengths,
                                          const screen::nussinov::Params& p);

}  // namespace screen::kernels::nussinov
