#pragma once
// The SIMD scan kernel of the miRanda fast CPU path (internal to cpu_scan*.cpp). It runs the
// three-state recurrence of next_cell (values only: predecessors are not needed to find candidate
// cells) for one query over L "lanes" in lockstep: lane k of step t is one target column, and rows
// 1..Lq are the inner loop with the previous column's states in a small array. What the lanes hold
// (chunks of one target, many short targets, or both) is decided by the caller (cpu_scan.cpp),
// which also resets a lane (its states back to the zero boundary column) where it starts a new
// segment.
//
// The kernel is a template over an "Ops" struct (the vector type and its operations); each
// instruction set instantiates it in its own translation unit, inside an unnamed namespace, so that
// the AVX2 instantiation (compiled with #pragma GCC target("avx2")) never leaks into code that runs
// on CPUs without AVX2. For the same reason this header uses no std:: templates.
//
// Exactness: with the bounds checked by scan_fits_16bit, every value of A, B and C lies in
// [min gap costs, positive gain] and every sum the recurrence forms fits in 16 bits, so the 16-bit
// arithmetic equals next_cell's int arithmetic (the adds saturate, but never need to).
#include <cstddef>
#include <cstdint>

#include "stages/miranda/miranda_defs.hpp"

namespace screen::miranda::scan_detail {

// Score profiles: 0 = zero row, 1 + q = plain row with query code q, 6 + q = seed row.
constexpr int kCombos = 11;
constexpr int kComboZero = 0;
constexpr int kComboPlain = 1;
constexpr int kComboSeed = 6;
constexpr int kMaxLanes = 16;

// Target codes in the step array: low byte the code (0..4), high byte code + 8 (so a byte shuffle
// with a 16-byte table gives a sign-extended 16-bit score: low byte the score, high byte its sign).
constexpr std::int16_t encode_code(std::uint8_t code) {
  const int c = code > 4 ? 4 : code;
  return static_cast<std::int16_t>(c | ((c + 8) << 8));
}

// Called for every candidate cell the kernel finds: lane, step, row i, score and best state.
using EmitFn = void (*)(void* sink, int lane, int step, int row, int score, int state);

struct ScanJob {
  int lq = 0;
  int seed_lo = 0;   // first seed row; seed rows are seed_lo..lq-1 (none when seed_lo >= lq)
  int open = 0, ext = 0, seed_open = 0, seed_ext = 0;
  int threshold = 1;  // a candidate needs best >= threshold (>= 1)
  const std::uint8_t* row_combo = nullptr;  // [lq + 1]: profile of each row (index 0 unused)
  int n_combos = 0;
  std::uint8_t combos[kCombos] = {};        // the profiles some row uses
  int score[kCombos][8] = {};               // s for each profile and target code 0..4
  std::int8_t shuffle[kCombos][16] = {};    // bytes 0..4 low byte of s, bytes 8..12 its sign byte
  int steps = 0;
  const std::int16_t* idx = nullptr;        // [steps x L] encoded target codes
  int n_resets = 0;
  const int* reset_steps = nullptr;         // ascending steps at which some lane starts over
  const std::int16_t* reset_masks = nullptr;  // [n_resets x L]: -1 keep, 0 reset
  void* sink = nullptr;
  EmitFn emit = nullptr;
};

// Bytes of work space (aligned to 64) any kernel needs for a query of lq rows.
constexpr std::size_t work_bytes(int lq) {
  return (static_cast<std::size_t>(4) * static_cast<std::size_t>(lq + 1) + kCombos + kCombos * 5 + 4) * 64;
}

// Entry points, one per instruction set (defined in cpu_scan.cpp and cpu_scan_avx2.cpp). `work` must
// be 64-byte aligned and hold work_bytes(job.lq).
void scan_scalar(const ScanJob& job, void* work);
#if defined(__x86_64__) || defined(_M_X64)
void scan_sse2(const ScanJob& job, void* work);
void scan_avx2(const ScanJob& job, void* work);
#endif

}  // namespace screen::miranda::scan_detail

#ifdef SCREEN_MIRANDA_SCAN_KERNEL
// The kernel template: included (with SCREEN_MIRANDA_SCAN_KERNEL defined) by the translation units
// that instantiate it, each inside its own unnamed namespace.
namespace screen::miranda::scan_detail {
namespace {

template <class Ops, bool Seed>
inline void scan_row(const typename Ops::V& s, const typename Ops::V& open, const typename Ops::V& ext,
                     typename Ops::V& diag, typename Ops::V& a_up, typename Ops::V& c_up, typename Ops::V& hit,
                     typename Ops::V* mp, typename Ops::V* ap, typename Ops::V* bp, typename Ops::V* cc) {
  using V = typename Ops::V;
  const V zero = Ops::zero();
  // A: best of the diagonal's states plus s, clamped at 0.
  const V a = Ops::max(Ops::add(diag, s), zero);
  // B: open from A or extend B in the previous column (never clamped).
  const V b = Ops::max(Ops::add(*ap, open), Ops::add(*bp, ext));
  // C: open from A or extend C in the row above, same column; -1 in seed rows.
  V c;
  if (Seed) {
    c = Ops::set1(kForbiddenTargetGap);
  } else {
    c = Ops::max(Ops::add(a_up, open), Ops::add(c_up, ext));
  }
  const V m = Ops::max(a, Ops::max(b, c));
  diag = *mp;
  *mp = m;
  *ap = a;
  *bp = b;
  *cc = c;
  a_up = a;
  c_up = c;
  hit = Ops::max(hit, Ops::max(a, c));
}

template <class Ops>
void scan_kernel(const ScanJob& job, void* work) {
  using V = typename Ops::V;
  using E = typename Ops::E;
  constexpr int L = Ops::L;
  const int lq = job.lq;
  V* mp = static_cast<V*>(work);  // M = max(A, B, C) of the previous column, rows 0..lq
  V* ap = mp + (lq + 1);          // A of the previous column (after the row: this column)
  V* bp = ap + (lq + 1);          // B likewise
  V* cc = bp + (lq + 1);          // C of this column
  V* prof = cc + (lq + 1);        // [kCombos] this column's scores per profile
  V* tables = prof + kCombos;     // Ops' own per-query tables
  for (int i = 0; i <= lq; ++i) {
    mp[i] = Ops::zero();
    ap[i] = Ops::zero();
    bp[i] = Ops::zero();
    cc[i] = Ops::zero();
  }
  for (int k = 0; k < kCombos; ++k) prof[k] = Ops::zero();
  Ops::prepare(job, tables);

  const V open = Ops::set1(job.open), ext = Ops::set1(job.ext);
  const V seed_open = Ops::set1(job.seed_open), seed_ext = Ops::set1(job.seed_ext);
  const V thr = Ops::set1(job.threshold - 1);
  const int seed_lo = job.seed_lo < 1 ? 1 : job.seed_lo;
  const int plain_end = seed_lo < lq ? seed_lo : lq;  // rows 1..plain_end-1 plain
  const std::uint8_t* combo = job.row_combo;
  int next_reset = 0;
  alignas(64) E va[kMaxLanes], vb[kMaxLanes], vc[kMaxLanes];

  for (int step = 0; step < job.steps; ++step) {
    if (next_reset < job.n_resets && job.reset_steps[next_reset] == step) {
      const V keep = Ops::load_mask(job.reset_masks + static_cast<std::size_t>(next_reset) * L);
      for (int i = 1; i <= lq; ++i) {
        mp[i] = Ops::keep(mp[i], keep);
        ap[i] = Ops::keep(ap[i], keep);
        bp[i] = Ops::keep(bp[i], keep);
      }
      ++next_reset;
    }
    Ops::profiles(job, tables, job.idx + static_cast<std::size_t>(step) * L, prof);
    V diag = Ops::zero(), a_up = Ops::zero(), c_up = Ops::zero(), hit = Ops::zero();
    int i = 1;
    for (; i < plain_end; ++i)
      scan_row<Ops, false>(prof[combo[i]], open, ext, diag, a_up, c_up, hit, mp + i, ap + i, bp + i, cc + i);
    for (; i < lq; ++i)
      scan_row<Ops, true>(prof[combo[i]], seed_open, seed_ext, diag, a_up, c_up, hit, mp + i, ap + i, bp + i, cc + i);
    scan_row<Ops, false>(prof[combo[lq]], open, ext, diag, a_up, c_up, hit, mp + lq, ap + lq, bp + lq, cc + lq);

    if (!Ops::any_gt(hit, thr)) continue;
    // Rare: some lane has max(A, C) >= threshold in some row. Apply the exact candidate test.
    for (int r = 1; r <= lq; ++r) {
      if (!Ops::any_gt(Ops::max(ap[r], cc[r]), thr)) continue;
      Ops::store(va, ap[r]);
      Ops::store(vb, bp[r]);
      Ops::store(vc, cc[r]);
      for (int lane = 0; lane < L; ++lane) {
        const Best best = best_of(va[lane], vb[lane], vc[lane]);
        if (is_candidate(best, job.threshold)) job.emit(job.sink, lane, step, r, best.score, best.state);
      }
    }
  }
}

}  // namespace
}  // namespace screen::miranda::scan_detail
#endif  // SCREEN_MIRANDA_SCAN_KERNEL
