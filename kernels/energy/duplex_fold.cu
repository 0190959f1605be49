// Duplex free energies on the GPU (see duplex_launch.hpp for the work layout). The recurrences are
// the CPU fast path's (lib/stages/energy/cpu.cpp), term for term; the loop energies come from the
// shared definitions of energy_model.hpp (hairpin_energy_from_length, interior_energy,
// make_loop_tables), so that the paths cannot drift apart.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "gpu/cuda_check.hpp"
#include "kernels/energy/duplex_launch.hpp"

namespace screen::kernels::energy {
namespace {

namespace en = ::screen::energy;
using en::kInf;
using en::kMaxLoop;

constexpr int kWarp = 32;
constexpr int kRawLimit = kValueLimit + kTermLimit + 300;  // a raw cell + a loop term at or above: no structure

// The model's small tables, copied once per block.
struct BlockTables {
  en::LoopTables loops;
  int hairpin_length[kMaxGpuDuplex + 1];
  int tetraloop_bonus[en::kTetraloops];
  char tetraloop[en::kTetraloops][8];
  int tetraloop_count;
  signed char pair[64];  // pair_type(a, b) at a * 8 + b
};

constexpr std::size_t align16(std::size_t b) { return (b + 15) / 16 * 16; }
constexpr std::size_t block_bytes() { return align16(sizeof(BlockTables)); }

// One warp's part, for strings of up to N letters: four tables of cells(N) 16-bit cells, F, codes,
// aliases and letters.
struct WarpLayout {
  std::size_t cells, f, bytes_small, total;
  explicit constexpr WarpLayout(int N)
      : cells((static_cast<std::size_t>(N) * (N + 1) / 2 + 7) / 8 * 8),
        f((static_cast<std::size_t>(N) + 1 + 3) / 4 * 4),
        bytes_small(align16(static_cast<std::size_t>(N) + 8)),
        total(align16(4 * cells * sizeof(std::int16_t) + f * sizeof(int) + 3 * bytes_small)) {}
};

__device__ __forceinline__ int ld(std::int16_t x) { return x == kInf16 ? kInf : static_cast<int>(x); }
__device__ __forceinline__ int add(int a, int b) { return a >= kInf || b >= kInf ? kInf : a + b; }

// A value into a cell: no structure (kInf16), or the value; one outside the 16-bit range's safe
// part sets `overflow` (the string is then folded on the CPU).
__device__ __forceinline__ std::int16_t store(int v, bool& overflow) {
  if (v >= kInf / 2) return kInf16;
  if (v >= kValueLimit || v <= -kValueLimit) {
    overflow = true;
    return kInf16;
  }
  return static_cast<std::int16_t>(v);
}

__device__ int tetra_bonus(const BlockTables& bt, const char* six) {
  for (int k = 0; k < bt.tetraloop_count; ++k) {
    bool same = true;
    for (int c = 0; c < 6; ++c) same &= bt.tetraloop[k][c] == six[c];
    if (same) return bt.tetraloop_bonus[k];
  }
  return 0;
}

// One string of n >= 5 letters (the warp's tables in shared memory); returns its MFE or kOverflow
// (on every lane).
__device__ int fold_one(const FoldArgs& args, const BlockTables& bt, const char* in, int n, std::int16_t* Cmi,
                        std::int16_t* Cau, std::int16_t* M, std::int16_t* D, int* F, unsigned char* code,
                        unsigned char* alias, char* letters, int lane) {
  const en::Model& m = *args.model;
  for (int p = lane; p < n; p += kWarp) {
    const char c = in[p];
    letters[p] = c;
    const int cd = en::letter_code(c);
    code[p + 1] = static_cast<unsigned char>(cd);
    alias[p + 1] = static_cast<unsigned char>(en::letter_alias(cd));
  }
  if (lane == 0) code[0] = alias[0] = code[n + 1] = alias[n + 1] = 0;
  // Cell (i, j), 1 <= i <= j <= n, of the upper triangle, row by row (triangle_index).
  const auto base = [n](int i) { return triangle_index(n, i, i); };
  const auto at = [n](int i, int j) { return triangle_index(n, i, j); };
  for (int i = 1 + lane; i <= n; i += kWarp)
    for (int j = i; j <= min(n, i + 3); ++j) {
      const int c = at(i, j);
      Cmi[c] = Cau[c] = M[c] = D[c] = kInf16;  // spans below 4: no pair, no branch
    }
  __syncwarp();
  const auto type = [&](int p, int q) { return q - p >= 4 ? static_cast<int>(bt.pair[code[p] * 8 + code[q]]) : 0; };
  const auto au = [&m](int t) { return en::terminal_penalty(m, t); };
  const auto c_of = [&](int p, int q, int t) {  // C(p, q) of a pair of type t
    const int v = ld(Cau[at(p, q)]);
    return v >= kInf ? kInf : v - au(t);
  };
  const int mb = m.ml_base;
  bool overflow = false;

  for (int d = 4; d < n; ++d) {
    for (int i = 1 + lane; i + d <= n; i += kWarp) {
      const int j = i + d;
      // D(i, j): M(i, k) along row i, M(k+1, j) down column j.
      int dv = kInf;
      {
        const std::int16_t* mi = M + base(i) - i;
        int c = at(i + 5, j);
        for (int k = i + 4; k <= j - 5; ++k) {
          dv = min(dv, ld(mi[k]) + ld(M[c]));
          c += n - k - 1;
        }
        dv = min(dv, kInf);
      }
      D[at(i, j)] = store(dv, overflow);
      // C(i, j).
      const int t = type(i, j);
      int cv = kInf;
      if (t) {
        const int u = j - i - 1;
        const int si = alias[i + 1], sj = alias[j - 1];
        cv = en::hairpin_energy_from_length(m, t, u, bt.hairpin_length[u], u == 4 ? tetra_bonus(bt, letters + i - 1) : 0,
                                            si, sj);
        const auto two_pair = [&](int p, int q) {
          if (q - p < 4) return;
          const int t2 = type(p, q);
          if (!t2) return;
          const int c = c_of(p, q, t2);
          if (c >= kInf) return;
          cv = min(cv, en::interior_energy(m, t, en::reverse_type(t2), p - i - 1, j - q - 1, si, sj, alias[p - 1],
                                           alias[q + 1]) + c);
        };
        two_pair(i + 1, j - 1);  // stack
        two_pair(i + 1, j - 2);  // bulges of one letter
        two_pair(i + 2, j - 1);
        {
          // Bulges of 2 to 30 letters: along row i+1 of Cau (3' side), down column j-1 (5' side).
          int best = kInf;
          const std::int16_t* row = Cau + base(i + 1) - (i + 1);
          for (int q = max(i + 5, j - 1 - kMaxLoop); q <= j - 3; ++q)
            best = min(best, bt.loops.bulge_rev[q - (j - 1) + kMaxLoop] + row[q]);
          int c = at(i + 3, j - 1);
          for (int p = i + 3; p <= min(j - 5, i + 1 + kMaxLoop); ++p) {
            best = min(best, bt.loops.bulge[p - i - 1] + Cau[c]);
            c += n - p;
          }
          if (best < kRawLimit) cv = min(cv, best + au(t));
        }
        two_pair(i + 2, j - 2);
        two_pair(i + 2, j - 3);
        two_pair(i + 3, j - 2);
        two_pair(i + 3, j - 3);
        // Generic internal loops: loop table + Cmi along row p.
        const int mout = m.mismatch_interior[t][si][sj];
        for (int n1 = 1; n1 < kMaxLoop; ++n1) {
          const int p = i + 1 + n1;
          const int n2max = min(kMaxLoop - n1, j - 5 - p);
          if (n2max < 1) break;
          const std::int16_t* row = Cmi + base(p) - p;
          const int* lr = bt.loops.generic_rev[n1] + kMaxLoop - (j - 1);
          int best = kInf;
          for (int q = j - 1 - n2max; q <= j - 2; ++q) best = min(best, lr[q] + row[q]);
          if (best < kRawLimit) cv = min(cv, best + mout);
        }
        // Multiloop closed by (i, j).
        const int tt = en::reverse_type(t);
        const int d3 = m.dangle3[tt][si], d5 = m.dangle5[tt][sj];
        int ml = ld(D[at(i + 1, j - 1)]);
        ml = min(ml, add(ld(D[at(i + 2, j - 1)]), d3 + mb));
        ml = min(ml, add(ld(D[at(i + 1, j - 2)]), d5 + mb));
        ml = min(ml, add(ld(D[at(i + 2, j - 2)]), d5 + d3 + 2 * mb));
        cv = min(cv, add(ml, m.ml_closing + m.ml_intern[t]));
      }
      const int cell = at(i, j);
      const bool paired = t && cv < kInf;
      Cmi[cell] = paired ? store(cv + m.mismatch_interior[en::reverse_type(t)][alias[j + 1]][alias[i - 1]], overflow) : kInf16;
      Cau[cell] = paired ? store(cv + au(t), overflow) : kInf16;
      // M(i, j).
      int mv = min(add(ld(M[at(i + 1, j)]), mb), add(ld(M[at(i, j - 1)]), mb));
      if (t) mv = min(mv, add(cv, m.ml_intern[t]));
      if (const int t1 = type(i + 1, j)) mv = min(mv, add(c_of(i + 1, j, t1), m.dangle5[t1][alias[i]] + m.ml_intern[t1] + mb));
      if (const int t1 = type(i, j - 1)) mv = min(mv, add(c_of(i, j - 1, t1), m.dangle3[t1][alias[j]] + m.ml_intern[t1] + mb));
      if (const int t1 = type(i + 1, j - 1))
        mv = min(mv, add(c_of(i + 1, j - 1, t1), m.dangle5[t1][alias[i]] + m.dangle3[t1][alias[j]] + m.ml_intern[t1] + 2 * mb));
      M[cell] = store(min(mv, dv), overflow);
    }
    __syncwarp();
  }

  // F: the exterior loop, one j at a time; the lanes take the i terms.
  for (int j = lane; j <= min(n, 4); j += kWarp) F[j] = 0;
  __syncwarp();
  const auto fv = [F](int j) { return j <= 0 ? 0 : F[j]; };
  for (int j = 5; j <= n; ++j) {
    int best = kInf;
    if (lane == 0) {
      best = F[j - 1];
      if (const int t = type(1, j)) best = min(best, add(c_of(1, j, t), au(t)));
      if (const int t = type(1, j - 1)) best = min(best, add(c_of(1, j - 1, t), m.dangle3[t][alias[j]] + au(t)));
    }
    for (int i = 2 + lane; i <= j - 4; i += kWarp) {
      if (const int t = type(i, j)) {
        const int c = c_of(i, j, t);
        if (c < kInf) {
          best = min(best, fv(i - 1) + c + au(t));
          best = min(best, fv(i - 2) + c + m.dangle5[t][alias[i - 1]] + au(t));
        }
      }
      if (const int t = type(i, j - 1)) {
        const int c = c_of(i, j - 1, t);
        if (c < kInf) {
          const int d3 = m.dangle3[t][alias[j]];
          best = min(best, fv(i - 1) + c + d3 + au(t));
          best = min(best, fv(i - 2) + c + d3 + m.dangle5[t][alias[i - 1]] + au(t));
        }
      }
    }
    best = __reduce_min_sync(0xffffffffu, best);
    if (lane == 0) F[j] = best;
    __syncwarp();
  }
  const int energy = F[n];
  __syncwarp();  // F and the tables are reused by the warp's next string
  return __any_sync(0xffffffffu, overflow) ? kOverflow : energy;
}

__global__ void fold_kernel(FoldArgs args) {
  extern __shared__ __align__(16) unsigned char smem[];
  BlockTables& bt = *reinterpret_cast<BlockTables*>(smem);
  const int tid = static_cast<int>(threadIdx.x);
  {
    const int* src = &args.loops->generic_rev[0][0];
    int* dst = &bt.loops.generic_rev[0][0];
    for (int k = tid; k < (kMaxLoop + 1) * (kMaxLoop + 1); k += blockDim.x) dst[k] = src[k];
    for (int k = tid; k <= kMaxLoop; k += blockDim.x) {
      bt.loops.bulge[k] = args.loops->bulge[k];
      bt.loops.bulge_rev[k] = args.loops->bulge_rev[k];
    }
    for (int k = tid; k <= args.max_length; k += blockDim.x) bt.hairpin_length[k] = args.hairpin_length[k];
    for (int k = tid; k < en::kTetraloops * 6; k += blockDim.x) bt.tetraloop[k / 6][k % 6] = args.model->tetraloop[k / 6][k % 6];
    for (int k = tid; k < en::kTetraloops; k += blockDim.x) bt.tetraloop_bonus[k] = args.model->tetraloop_bonus[k];
    for (int k = tid; k < 64; k += blockDim.x) bt.pair[k] = static_cast<signed char>(en::pair_type(k >> 3, k & 7));
    if (tid == 0) bt.tetraloop_count = args.model->tetraloop_count;
  }
  __syncthreads();
  const int lane = tid % kWarp, warp = tid / kWarp, warps = static_cast<int>(blockDim.x) / kWarp;
  const WarpLayout lay(args.max_length);
  unsigned char* mine = smem + block_bytes() + static_cast<std::size_t>(warp) * lay.total;
  auto* Cmi = reinterpret_cast<std::int16_t*>(mine);
  std::int16_t* Cau = Cmi + lay.cells;
  std::int16_t* M = Cau + lay.cells;
  std::int16_t* D = M + lay.cells;
  int* F = reinterpret_cast<int*>(D + lay.cells);
  unsigned char* code = reinterpret_cast<unsigned char*>(F + lay.f);
  unsigned char* alias = code + lay.bytes_small;
  char* letters = reinterpret_cast<char*>(alias + lay.bytes_small);
  const std::uint32_t stride = gridDim.x * static_cast<std::uint32_t>(warps);
  for (std::uint32_t w = blockIdx.x * static_cast<std::uint32_t>(warps) + static_cast<std::uint32_t>(warp); w < args.count;
       w += stride) {
    const std::uint32_t k = args.order[w];
    const std::uint32_t off = args.offsets[k];
    const int n = static_cast<int>(args.offsets[k + 1] - off);
    int e = 0;  // fewer than five letters: no pair fits
    if (n >= 5) e = fold_one(args, bt, args.letters + off, n, Cmi, Cau, M, D, F, code, alias, letters, lane);
    if (lane == 0) args.energies[k] = e;
    if (args.tables != nullptr && n >= 5 && e != kOverflow) {
      const int cells = static_cast<int>(triangle_cells(n));
      std::int16_t* out = args.tables + args.table_offset[k];
      for (int c = lane; c < cells; c += kWarp) {
        out[c] = Cau[c];
        out[cells + c] = M[c];
      }
    }
    if (args.f_out != nullptr)
      for (int j = lane; j <= n; j += kWarp) args.f_out[off + k + j] = n >= 5 ? F[j] : 0;
    __syncwarp();  // the tables are read before the warp's next string overwrites them
  }
}

}  // namespace

std::size_t warp_shared_bytes(int max_length) { return WarpLayout(max_length).total; }

int warps_per_block(int max_length, std::size_t shared_per_sm) {
  // The most warps per multiprocessor; fewer warps per block on a tie (finer grid).
  constexpr std::size_t kPerBlockReserve = 1024, kMaxBlockShared = 227 * 1024;
  int best = 1;
  std::size_t best_warps = 0;
  for (int w = 1; w <= 16; ++w) {
    const std::size_t bytes = block_bytes() + static_cast<std::size_t>(w) * warp_shared_bytes(max_length);
    if (bytes > kMaxBlockShared) break;
    const std::size_t warps = shared_per_sm / (bytes + kPerBlockReserve) * static_cast<std::size_t>(w);
    if (warps > best_warps) {
      best_warps = warps;
      best = w;
    }
  }
  return best;
}

void launch_fold(const FoldArgs& args, int device, void* stream) {
  if (args.count == 0) return;
  int sms = 0, shared_per_sm = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&shared_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  const int warps = warps_per_block(args.max_length, static_cast<std::size_t>(shared_per_sm));
  const std::size_t bytes = block_bytes() + static_cast<std::size_t>(warps) * warp_shared_bytes(args.max_length);
  CUDA_CHECK(cudaFuncSetAttribute(fold_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fold_kernel, warps * kWarp, bytes));
  const std::size_t wanted = (static_cast<std::size_t>(args.count) + warps - 1) / static_cast<std::size_t>(warps);
  const std::size_t resident = static_cast<std::size_t>(std::max(per_sm, 1)) * static_cast<std::size_t>(sms) * 4;
  const unsigned blocks = static_cast<unsigned>(std::min(wanted, resident));
  fold_kernel<<<blocks, static_cast<unsigned>(warps * kWarp), bytes, static_cast<cudaStream_t>(stream)>>>(args);
  CUDA_CHECK_LAUNCH();
}

}  // namespace screen::kernels::energy
