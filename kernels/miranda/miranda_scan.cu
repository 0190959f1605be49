// miRanda candidate scan on the GPU (see miranda_launch.hpp for the work layout).
//
// One warp per block: 32 threads, one query, 64 chunks. Each thread runs two chunks at once, one in
// each 16-bit half of its registers, sweeping columns left to right with the three states of every
// row of the previous column in registers (A, B and M = max(A, B, C); C is carried down the column).
// The per-cell arithmetic is next_cell's (miranda_defs.hpp) on values only: predecessors are not
// needed to find candidate cells. With scan_fits_16bit every value and every sum fits in 16 bits,
// so the packed DPX instructions (__viaddmax_s16x2, __vimax3_s16x2) equal the int arithmetic.
// Cell scores come from a shared-memory table per row and (code of chunk 0, code of chunk 1) pair,
// filled with cell_score() of the shared ScoreModel. A column where some half has max(A, C) above
// threshold - 1 (rare) re-derives C down the column and applies best_of / is_candidate exactly.
#include <cuda_runtime.h>

#include <cstdint>

#include "gpu/cuda_check.hpp"
#include "kernels/miranda/miranda_launch.hpp"

namespace screen::kernels::miranda {
namespace {

namespace mi = ::screen::miranda;

constexpr int kCombos = 25;  // (code of half 0) x 5 + code of half 1

__device__ __forceinline__ unsigned pack2(int lo, int hi) {
  return (static_cast<unsigned>(lo) & 0xFFFFu) | (static_cast<unsigned>(hi) << 16);
}
__device__ __forceinline__ int half_of(unsigned v, int h) {
  return h == 0 ? static_cast<int>(static_cast<short>(v & 0xFFFFu)) : static_cast<int>(static_cast<short>(v >> 16));
}

__device__ __forceinline__ void emit(const ScanArgs& args, std::uint32_t query, std::uint32_t chunk, int i, int j,
                                     const mi::Best& b) {
  const unsigned long long k = atomicAdd(args.count, 1ULL);
  if (k < args.capacity) {
    RawCandidate c;
    c.query = query;
    c.chunk = chunk;
    c.i = i;
    c.j = j;
    c.score_state = b.score * 4 + b.state;
    args.out[k] = c;
  }
}

template <int R>
__global__ void __launch_bounds__(32) scan_kernel(const ScanArgs args) {
  __shared__ unsigned tab[R * kCombos];
  const Block blk = args.blocks[blockIdx.x];
  const int lq = args.query_length[blk.query];
  const std::uint8_t* q = args.query_codes + args.query_offset[blk.query];
  const mi::ScoreModel& m = args.model;
  // Row r of the array is query row i = r - (R - lq) + 1; rows above the query score 0.
  for (int e = static_cast<int>(threadIdx.x); e < R * kCombos; e += 32) {
    const int r = e / kCombos, combo = e % kCombos;
    const int i = r - (R - lq) + 1;
    int s0 = 0, s1 = 0;
    if (i >= 1) {
      const std::uint8_t a = q[lq - i];
      s0 = mi::cell_score(m, i, lq, a, static_cast<std::uint8_t>(combo / 5));
      s1 = mi::cell_score(m, i, lq, a, static_cast<std::uint8_t>(combo % 5));
    }
    tab[e] = pack2(s0, s1);
  }
  __syncthreads();

  const int warm = args.query_warm[blk.query];
  std::uint32_t cid[2];
  int ws[2], rb[2], len[2];
  const std::uint8_t* col[2];
  int steps = 0;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    cid[h] = blk.chunk0 + 2 * threadIdx.x + h;
    const Chunk c = args.chunks[cid[h]];
    rb[h] = c.rb;
    ws[h] = c.rb - warm > 1 ? c.rb - warm : 1;
    len[h] = c.re >= c.rb ? c.re - ws[h] + 1 : 0;
    col[h] = args.target_codes + args.target_offset[c.target] + (ws[h] - 1);
    steps = len[h] > steps ? len[h] : steps;
  }

  const unsigned open = pack2(m.open, m.open), ext = pack2(m.extend, m.extend);
  const unsigned sopen = pack2(m.seed_open, m.seed_open), sext = pack2(m.seed_extend, m.seed_extend);
  const unsigned forbidden = pack2(mi::kForbiddenTargetGap, mi::kForbiddenTargetGap);
  const unsigned thr = pack2(args.threshold - 1, args.threshold - 1);

  unsigned A[R], B[R], M[R];
#pragma unroll
  for (int r = 0; r < R; ++r) A[r] = B[r] = M[r] = 0u;

  for (int t = 0; t < steps; ++t) {
    int b0 = t < len[0] ? __ldg(col[0] + t) : 4;
    int b1 = t < len[1] ? __ldg(col[1] + t) : 4;
    b0 = b0 > 4 ? 4 : b0;
    b1 = b1 > 4 ? 4 : b1;
    const unsigned* srow = tab + b0 * 5 + b1;
    unsigned diag = 0u, a_up = 0u, c_up = 0u, hit = 0u;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      constexpr int kSeedLo = R - 8, kSeedHi = R - 2;
      const bool seed = r >= kSeedLo && r <= kSeedHi;
      const unsigned s = srow[r * kCombos];
      const unsigned a = __viaddmax_s16x2(diag, s, 0u);                                    // max(diag + s, 0)
      const unsigned b = __viaddmax_s16x2(A[r], seed ? sopen : open, __vadd2(B[r], seed ? sext : ext));
      const unsigned c = seed ? forbidden : __viaddmax_s16x2(a_up, open, __vadd2(c_up, ext));
      diag = M[r];
      M[r] = __vimax3_s16x2(a, b, c);
      A[r] = a;
      B[r] = b;
      a_up = a;
      c_up = c;
      hit = __vimax3_s16x2(hit, a, c);
    }
    if (__vcmpgts2(hit, thr) == 0u) continue;
    // Rare: exact candidate test of this column's cells (C re-derived down the column).
    a_up = 0u;
    c_up = 0u;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      constexpr int kSeedLo = R - 8, kSeedHi = R - 2;
      const bool seed = r >= kSeedLo && r <= kSeedHi;
      const unsigned c = seed ? forbidden : __viaddmax_s16x2(a_up, open, __vadd2(c_up, ext));
      a_up = A[r];
      c_up = c;
      if (r < R - lq || __vcmpgts2(__vmaxs2(A[r], c), thr) == 0u) continue;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int j = ws[h] + t;
        if (t >= len[h] || j < rb[h]) continue;  // warm-up or padding
        const mi::Best best = mi::best_of(half_of(A[r], h), half_of(B[r], h), half_of(c, h));
        if (mi::is_candidate(best, args.threshold)) emit(args, blk.query, cid[h], r - (R - lq) + 1, j, best);
      }
    }
  }
}

}  // namespace

int rows_variant(int lq) {
  if (lq < 1) return 0;
  if (lq <= 24) return 24;
  if (lq <= 32) return 32;
  if (lq <= kMaxGpuQueryLength) return 64;
  return 0;
}

void launch_scan(const ScanArgs& args, void* stream) {
  if (args.n_blocks == 0) return;
  const auto s = static_cast<cudaStream_t>(stream);
  const dim3 grid(args.n_blocks), block(32);
  switch (args.rows) {
    case 24: scan_kernel<24><<<grid, block, 0, s>>>(args); break;
    case 32: scan_kernel<32><<<grid, block, 0, s>>>(args); break;
    case 64: scan_kernel<64><<<grid, block, 0, s>>>(args); break;
    default: throw Error(ExitCode::internal, "miranda gpu: no kernel variant for this row count");
  }
  CUDA_CHECK_LAUNCH();
}

}  // namespace screen::kernels::miranda
