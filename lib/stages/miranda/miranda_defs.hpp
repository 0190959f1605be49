#pragma once
// miRanda-style alignment: the definitions shared by every code path (the CPU reference, a later
// SIMD path and the CUDA kernels). The rules are docs/algorithms.md (miRanda); this header holds the
// constants and the per-cell arithmetic so that no path can disagree on them. No std:: containers
// here: nvcc compiles it for the device too.
//
// Conventions (all paths):
//   - rows i = 1..Lq hold the query reversed (row i is microRNA position Lq - i + 1 from the 5' end);
//     columns j = 1..Lr hold the target; row 0 and column 0 are all zero in every state;
//   - state A: query base i aligned to target base j; state B: gap in the query (consumes target base
//     j); state C: gap in the target (consumes query base i).
#include <cstdint>

#include "common/host_device.hpp"
#include "seq/alphabet.hpp"

namespace screen::miranda {

// ---- base scores ------------------------------------------------------------------------------
constexpr int kScoreComplement = 5;   // A-U, U-A, G-C, C-G
constexpr int kScoreWobble = 1;       // G-U, U-G
constexpr int kScoreMasked = -1;      // either base masked (N, IUPAC, X)
constexpr int kScoreMismatch = -3;    // anything else

// c(a, b) for a query base a and a target base b (alphabet.hpp codes; any code > 3 is masked).
SCREEN_HD constexpr int base_score(std::uint8_t a, std::uint8_t b) {
  if (a > 3 || b > 3) return kScoreMasked;
  if (a + b == 3) return kScoreComplement;  // A(0)+U(3), C(1)+G(2)
  if ((a == seq::G && b == seq::U) || (a == seq::U && b == seq::G)) return kScoreWobble;
  return kScoreMismatch;
}

// Display character of c(a, b): '|' complementary, ':' wobble, ' ' otherwise.
SCREEN_HD constexpr char match_symbol(std::uint8_t a, std::uint8_t b) {
  const int c = base_score(a, b);
  return c == kScoreComplement ? '|' : c == kScoreWobble ? ':' : ' ';
}

// ---- states -----------------------------------------------------------------------------------
enum State : std::uint8_t { kNone = 0, kA = 1, kB = 2, kC = 3 };

// ---- post-processing constants ------------------------------------------------------------------
constexpr int kMinScoringQueryLength = 4;  // Lq <= 3: every cell scores 0, no hits
constexpr int kSeedRowsFromEnd = 8;        // L3 = Lq - 8; seed rows L3 < i < Lq (positions 2..8)
constexpr int kSeedFirstPosition = 2;      // microRNA positions of the seed (5' end = 1)
constexpr int kSeedLastPosition = 8;
constexpr int kStrictMinMatches = 7;       // strict: '|' (and aligned characters) in positions 2..8
constexpr int kDiagonalSuppression = 6;    // a kept candidate removes later ones with |ddiag| <= 6
constexpr int kMaxTargetOverlap = 6;       // a hit overlapping an accepted one by > 6 is dropped

// ---- parameters ---------------------------------------------------------------------------------
// The user-facing parameters, as miRanda takes them (real numbers). ScoreModel holds the integers
// every path computes with.
struct Params {
  double score_threshold = 140.0;  // T: a cell is a candidate when best >= T
  double scale = 4.0;              // s: seed rows score trunc(s x c) and gap costs trunc(s x go/ge)
  double gap_open = -9.0;          // go
  double gap_extend = -4.0;        // ge
  bool strict = false;             // keep only hits with a perfect seed (positions 2..8)
  int max_hits_per_pair = 1000;    // more hits than this in one pair: keep the first, flag truncated
  // Duplex free energies (docs/energy.md). Off here, so that a Params{} is miRanda's -noenergy;
  // screen align and the manifest turn them on by default, as miRanda does.
  bool energy = false;             // compute each hit's energy and keep hits below the threshold
  double energy_threshold = 1.0;   // kcal/mol: a hit is reported when its energy is < this
  double temperature = 30.0;       // degrees C (miRanda's)
};

// Conversion of a double to int as C does it: toward zero.
SCREEN_HD constexpr int trunc_to_int(double x) { return static_cast<int>(x); }

// Smallest integer >= x (for comparing integer scores with a real threshold).
SCREEN_HD constexpr int ceil_to_int(double x) {
  const int t = static_cast<int>(x);
  return (static_cast<double>(t) < x) ? t + 1 : t;
}

// Row classes: zero rows (1, 2 and Lq, or every row when Lq <= 3), seed rows, plain rows.
enum RowKind : std::uint8_t { kRowPlain = 0, kRowSeed = 1, kRowZero = 2 };

SCREEN_HD constexpr bool is_seed_row(int i, int lq) { return i > lq - kSeedRowsFromEnd && i < lq; }

SCREEN_HD constexpr RowKind row_kind(int i, int lq) {
  if (lq < kMinScoringQueryLength || i <= 2 || i == lq) return kRowZero;
  return is_seed_row(i, lq) ? kRowSeed : kRowPlain;
}

struct ScoreModel {
  int threshold = 0;         // ceil(score_threshold)
  int open = 0;              // outside the seed: trunc(go)
  int extend = 0;            // outside the seed: trunc(ge)
  int seed_open = 0;         // seed rows: trunc(s x go)
  int seed_extend = 0;       // seed rows: trunc(s x ge)
  int plain[5][5] = {};      // c(a, b)
  int seed[5][5] = {};       // trunc(s x c(a, b))
};

SCREEN_HD constexpr ScoreModel make_score_model(const Params& p) {
  ScoreModel m{};
  m.threshold = ceil_to_int(p.score_threshold);
  m.open = trunc_to_int(p.gap_open);
  m.extend = trunc_to_int(p.gap_extend);
  m.seed_open = trunc_to_int(p.scale * p.gap_open);
  m.seed_extend = trunc_to_int(p.scale * p.gap_extend);
  for (int a = 0; a < 5; ++a) {
    for (int b = 0; b < 5; ++b) {
      const int c = base_score(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b));
      m.plain[a][b] = c;
      m.seed[a][b] = trunc_to_int(p.scale * c);
    }
  }
  return m;
}

// s(i, j) for query code a in row i and target code b.
SCREEN_HD constexpr int cell_score(const ScoreModel& m, int i, int lq, std::uint8_t a, std::uint8_t b) {
  const RowKind k = row_kind(i, lq);
  const int ai = a > 4 ? 4 : a;
  const int bi = b > 4 ? 4 : b;
  return k == kRowZero ? 0 : k == kRowSeed ? m.seed[ai][bi] : m.plain[ai][bi];
}

// Gap costs of row i (negative numbers, added).
SCREEN_HD constexpr int gap_open_cost(const ScoreModel& m, int i, int lq) {
  return is_seed_row(i, lq) ? m.seed_open : m.open;
}
SCREEN_HD constexpr int gap_extend_cost(const ScoreModel& m, int i, int lq) {
  return is_seed_row(i, lq) ? m.seed_extend : m.extend;
}
// Gaps that consume a query base (state C) are forbidden in seed rows; C(i, j) is then this value,
// with predecessor A.
constexpr int kForbiddenTargetGap = -1;
SCREEN_HD constexpr bool target_gap_allowed(int i, int lq) { return !is_seed_row(i, lq); }

// ---- window bound for re-alignment ---------------------------------------------------------------
// Target columns that an alignment path with a positive score can span: Lq (match columns) plus the
// query gaps its matches can pay for, each costing at least the cheapest gap cost. -1 when a gap can
// cost nothing (no bound). Values of the DP that are positive only depend on paths this short, so a
// DP over a window that starts 2 x span columns before a candidate's end column reproduces the
// whole-target traceback from it (see traceback_window_begin in reference.hpp).
SCREEN_HD constexpr int max_positive_span(int lq, const ScoreModel& m) {
  int gain = 0;
  for (int i = 1; i <= lq; ++i) {
    const RowKind k = row_kind(i, lq);
    if (k == kRowZero) continue;
    int best = 0;
    for (int a = 0; a < 5; ++a) {
      for (int b = 0; b < 5; ++b) {
        const int v = k == kRowSeed ? m.seed[a][b] : m.plain[a][b];
        best = v > best ? v : best;
      }
    }
    gain += best;
  }
  int g = -m.extend;
  const int costs[3] = {-m.open, -m.seed_open, -m.seed_extend};
  for (int k = 0; k < 3; ++k) g = costs[k] < g ? costs[k] : g;
  if (g <= 0) return -1;
  return lq + gain / g;
}

// ---- the cell recurrence ------------------------------------------------------------------------
// One cell's three states with their remembered predecessors.
struct Cell {
  int a = 0, b = 0, c = 0;
  std::uint8_t pa = kNone, pb = kNone, pc = kNone;
};

// Computes cell (i, j) from diag = (i-1, j-1), left = (i, j-1), up = (i-1, j); s = s(i, j).
SCREEN_HD constexpr Cell next_cell(const Cell& diag, const Cell& left, const Cell& up, int s,
                                   int open, int extend, bool c_allowed) {
  Cell r{};
  // A: best of diag's states, preferring A, then B, then C; clamp at 0 (no predecessor).
  int m = diag.a;
  std::uint8_t pm = kA;
  if (diag.b > m) { m = diag.b; pm = kB; }
  if (diag.c > m) { m = diag.c; pm = kC; }
  r.a = m + s;
  r.pa = pm;
  if (r.a <= 0) { r.a = 0; r.pa = kNone; }
  // B: open from A or extend B; extension only when strictly larger. Never clamped.
  {
    const int o = left.a + open;
    const int e = left.b + extend;
    if (e > o) { r.b = e; r.pb = kB; } else { r.b = o; r.pb = kA; }
  }
  // C: open from A or extend C outside the seed; -1 from A in seed rows.
  if (c_allowed) {
    const int o = up.a + open;
    const int e = up.c + extend;
    if (e > o) { r.c = e; r.pc = kC; } else { r.c = o; r.pc = kA; }
  } else {
    r.c = kForbiddenTargetGap;
    r.pc = kA;
  }
  return r;
}

// best(i, j): the largest state, preferring A, then B, then C; 0 and kNone when <= 0.
struct Best {
  int score = 0;
  std::uint8_t state = kNone;
};
SCREEN_HD constexpr Best best_of(int a, int b, int c) {
  Best r{a, kA};
  if (b > r.score) { r.score = b; r.state = kB; }
  if (c > r.score) { r.score = c; r.state = kC; }
  if (r.score <= 0) { r.score = 0; r.state = kNone; }
  return r;
}

// A candidate end cell ends an alignment: best >= threshold and its state is not B.
SCREEN_HD constexpr bool is_candidate(const Best& b, int threshold) {
  return b.score > 0 && b.score >= threshold && b.state != kB;
}

}  // namespace screen::miranda
