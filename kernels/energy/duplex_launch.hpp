#pragma once
// Duplex free energies on the GPU: the launcher, declared in plain C++ so that
// lib/stages/energy/cuda.cpp (g++) can call it.
//
// Work layout. One warp folds one string at a time (a grid-stride loop over the launch's strings);
// the block's warps share the model's small tables in shared memory, and each warp keeps its
// string's tables (C with the inner mismatch, C with the terminal AU penalty, M and D; 16-bit cells,
// upper triangle only) in shared memory of its own, sized for the launch's longest string. The
// lanes of a warp take the cells of one diagonal (span j - i) at a time, as the CPU path's
// recurrences (energy_model.hpp, lib/stages/energy/cpu.cpp) in the same order of terms; then the
// exterior loop F, one j at a time, the lanes taking its i terms.
//
// 16-bit cells. A finite value of an n <= kMaxGpuDuplex fold lies far inside (-kValueLimit,
// kValueLimit) at any temperature screen accepts; "no structure" is kInf16. A raw cell plus a loop
// term (|term| < kTermLimit, checked by the host) stays above kValueLimit when the cell is kInf16,
// so the inner loops need no test. Should a value ever leave that range, the kernel writes
// kOverflow for the string, and the host folds it on the CPU: the result never depends on it.
#include <cstddef>
#include <cstdint>

#include "stages/energy/energy_model.hpp"

namespace screen::kernels::energy {

constexpr int kMaxGpuDuplex = 128;            // the longest string a launch takes
constexpr std::int32_t kOverflow = -2147483647 - 1;  // "fold this one on the CPU"
constexpr int kValueLimit = 27000;             // finite cells stay within +-kValueLimit
constexpr int kTermLimit = 2700;               // loop terms added to a raw cell stay within +-kTermLimit
constexpr std::int16_t kInf16 = 32767;

// Everything one launch needs; pointers are device pointers.
struct FoldArgs {
  const ::screen::energy::Model* model = nullptr;
  const ::screen::energy::LoopTables* loops = nullptr;
  const std::int32_t* hairpin_length = nullptr;  // [max_length + 1]: hairpin_length_energy(model, u)
  const char* letters = nullptr;                 // the strings, concatenated, as written
  const std::uint32_t* offsets = nullptr;        // string k is letters[offsets[k] .. offsets[k+1])
  const std::uint32_t* order = nullptr;          // the strings of this launch (indices k)
  std::uint32_t count = 0;                       // entries of order
  int max_length = 0;                            // the longest of them (<= kMaxGpuDuplex)
  std::int32_t* energies = nullptr;              // energies[k]: 0.01 kcal/mol, or kOverflow
  // Optional (structures): each string's tables for a host traceback. At tables + table_offset[k]:
  // its C + terminal AU cells, then its M cells, n(n+1)/2 each, cell (i, j) (1 <= i <= j <= n) at
  // triangle_index(n, i, j); at f_out + offsets[k] + k: F(0) .. F(n).
  std::int16_t* tables = nullptr;
  const std::uint64_t* table_offset = nullptr;
  std::int32_t* f_out = nullptr;
};

// The upper triangle's layout, row by row (shared with the host's reading of the tables).
constexpr int triangle_index(int n, int i, int j) { return (i - 1) * (n + 1) - (i - 1) * i / 2 + j - i; }
constexpr std::uint64_t triangle_cells(int n) { return static_cast<std::uint64_t>(n) * (n + 1) / 2; }

// Shared memory of one warp and warps per block for strings of up to max_length letters, on a
// device with `shared_per_sm` bytes of shared memory per multiprocessor.
std::size_t warp_shared_bytes(int max_length);
int warps_per_block(int max_length, std::size_t shared_per_sm);

// Launches the fold on `stream` of `device` (asynchronous; the caller synchronizes).
void launch_fold(const FoldArgs& args, int device, void* stream);

}  // namespace screen::kernels::energy
