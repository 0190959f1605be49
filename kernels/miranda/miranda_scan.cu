// miRanda candidate scan on the GPU (see miranda_launch.hpp for the work layout).
//
// One warp per block: 32 threads, one query, 64 lanes. Each thread runs two lanes at once, one in
// each 16-bit half of its registers, sweeping columns left to right with the three states of every
// row of the previous column in registers (A, B and M = max(A, B, C); C is carried down the column).
// The per-cell arithmetic is next_cell's (miranda_defs.hpp) on values only: predecessors are not
// needed to find candidate cells. With scan_fits_16bit every value and every sum fits in 16 bits,
// so the packed DPX instructions (__viaddmax_s16x2, __vimax3_s16x2) equal the int arithmetic.
// Cell scores come from a shared-memory table per row and (code of lane 0, code of lane 1) pair,
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

__device__ __forceinline__ void emit(const ScanArgs& args, std::uint32_t query, std::uint32_t target, int i, int j,
                                     const mi::Best& b) {
  const unsigned long long k = atomicAdd(args.count, 1ULL);
  if (k < args.capacity) {
    RawCandidate c;
    c.query = query;
    c.target = target;
    c.j = j;
    c.packed = pack_candidate(b.score, i, b.state);
    args.out[k] = c;
  }
}

// Index of the target holding position p: the largest k with starts[k] <= p (starts ascending).
__device__ __forceinline__ int target_of(const std::int32_t* starts, int n, int p) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if (__ldg(starts + mid) <= p) lo = mid; else hi = mid - 1;
  }
  return lo;
}

// One lane (one half of the thread's packed registers): positions ws .. end-1 are computed,
// rb .. end-1 reported; tk is the target at the current position, next its end.
struct Lane {
  int ws = 0, rb = 0, end = 0;
  int tk = 0, tstart = 0, next = 0;
};

template <int R>
__device__ __forceinline__ void reset_half(unsigned (&A)[R], unsigned (&B)[R], unsigned (&M)[R], int h) {
  const unsigned keep = h == 0 ? 0xFFFF0000u : 0x0000FFFFu;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    A[r] &= keep;
    B[r] &= keep;
    M[r] &= keep;
  }
}

template <int R>
__global__ void __launch_bounds__(32) scan_kernel(const ScanArgs args) {
  __shared__ unsigned tab[R * kCombos];
  const std::uint32_t query = args.launch_queries[blockIdx.x / args.blocks_per_query];
  const std::uint32_t lane_block = blockIdx.x % args.blocks_per_query;
  const int lq = args.query_length[query];
  const std::uint8_t* q = args.query_codes + args.query_offset[query];
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

  const int warm = args.query_warm[query];
  const int n = static_cast<int>(args.n_targets);
  Lane ln[2];
  int steps = 0;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const long long lane = static_cast<long long>(lane_block) * kLanesPerBlock + 2 * threadIdx.x + h;
    const long long rb = args.report_begin + lane * args.quota;
    Lane& l = ln[h];
    if (rb >= args.report_end) {
      l.ws = l.rb = l.end = args.report_end;
      l.next = 0x7fffffff;
      continue;
    }
    l.rb = static_cast<int>(rb);
    l.end = static_cast<int>(rb + args.quota < args.report_end ? rb + args.quota : args.report_end);
    l.tk = target_of(args.starts, n, l.rb);
    l.tstart = __ldg(args.starts + l.tk);
    l.next = __ldg(args.starts + l.tk + 1);
    l.ws = l.rb - warm > l.tstart ? l.rb - warm : l.tstart;
    steps = l.end - l.ws > steps ? l.end - l.ws : steps;
  }

  const unsigned open = pack2(m.open, m.open), ext = pack2(m.extend, m.extend);
  const unsigned sopen = pack2(m.seed_open, m.seed_open), sext = pack2(m.seed_extend, m.seed_extend);
  const unsigned forbidden = pack2(mi::kForbiddenTargetGap, mi::kForbiddenTargetGap);
  const unsigned thr = pack2(args.threshold - 1, args.threshold - 1);

  unsigned A[R], B[R], M[R];
#pragma unroll
  for (int r = 0; r < R; ++r) A[r] = B[r] = M[r] = 0u;

  for (int t = 0; t < steps; ++t) {
    int code[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      Lane& l = ln[h];
      const int p = l.ws + t;
      code[h] = 4;
      if (p >= l.end) continue;
      if (p == l.next) {  // a target border: the next target starts from the zero boundary
        reset_half<R>(A, B, M, h);
        do {
          ++l.tk;
          l.tstart = l.next;
          l.next = __ldg(args.starts + l.tk + 1);
        } while (l.next == p);
      }
      code[h] = __ldg(args.codes + p);
    }
    const unsigned* srow = tab + code[0] * 5 + code[1];
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
        const Lane& l = ln[h];
        const int p = l.ws + t;
        if (p < l.rb || p >= l.end) continue;  // warm-up or past the lane
        const mi::Best best = mi::best_of(half_of(A[r], h), half_of(B[r], h), half_of(c, h));
        if (mi::is_candidate(best, args.threshold))
          emit(args, query, static_cast<std::uint32_t>(l.tk), r - (R - lq) + 1, p - l.tstart + 1, best);
      }
    }
  }
}

}  // namespace

int rows_variant(int lq) {
  if (lq < 1) return 0;
  if (lq <= 24) return 24;
  if (lq <= 32) return 32;
  if (lq <= 64) return 64;
  if (lq <= kMaxGpuQueryLength) return 128;
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
    case 128: scan_kernel<128><<<grid, block, 0, s>>>(args); break;
    default: throw Error(ExitCode::internal, "miranda gpu: no kernel variant for this row count");
  }
  CUDA_CHECK_LAUNCH();
}

}  // namespace screen::kernels::miranda
