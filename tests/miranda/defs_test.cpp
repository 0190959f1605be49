// miranda_defs.hpp: the score table, the seed rows, the gap costs and the per-cell rules.
#include <gtest/gtest.h>

#include "stages/miranda/miranda_defs.hpp"

namespace screen::miranda {
namespace {

using seq::A;
using seq::C;
using seq::G;
using seq::N;
using seq::U;

TEST(MirandaDefs, BaseScoreTable) {
  const int expected[5][5] = {
      //  A   C   G   U   N      (target)
      {-3, -3, -3, 5, -1},   // A
      {-3, -3, 5, -3, -1},   // C
      {-3, 5, -3, 1, -1},    // G
      {5, -3, 1, -3, -1},    // U
      {-1, -1, -1, -1, -1},  // N
  };
  for (int a = 0; a < 5; ++a) {
    for (int b = 0; b < 5; ++b) {
      EXPECT_EQ(base_score(std::uint8_t(a), std::uint8_t(b)), expected[a][b]) << a << "," << b;
    }
  }
  static_assert(base_score(A, U) == 5 && base_score(G, U) == 1 && base_score(N, N) == -1);
}

TEST(MirandaDefs, MatchSymbols) {
  EXPECT_EQ(match_symbol(A, U), '|');
  EXPECT_EQ(match_symbol(C, G), '|');
  EXPECT_EQ(match_symbol(U, G), ':');
  EXPECT_EQ(match_symbol(G, U), ':');
  EXPECT_EQ(match_symbol(A, A), ' ');
  EXPECT_EQ(match_symbol(N, U), ' ');
  EXPECT_EQ(match_symbol(A, N), ' ');
}

TEST(MirandaDefs, SeedRowsArePositionsTwoToEight) {
  for (int lq : {9, 17, 21, 24, 64}) {
    for (int i = 1; i <= lq; ++i) {
      const int position = lq - i + 1;  // from the microRNA's 5' end
      EXPECT_EQ(is_seed_row(i, lq), position >= 2 && position <= 8) << lq << " " << i;
    }
  }
  // L3 = Lq - 8: for Lq = 21 the seed rows are 14..20.
  EXPECT_FALSE(is_seed_row(13, 21));
  EXPECT_TRUE(is_seed_row(14, 21));
  EXPECT_TRUE(is_seed_row(20, 21));
  EXPECT_FALSE(is_seed_row(21, 21));
}

TEST(MirandaDefs, ZeroRows) {
  EXPECT_EQ(row_kind(1, 21), kRowZero);
  EXPECT_EQ(row_kind(2, 21), kRowZero);
  EXPECT_EQ(row_kind(3, 21), kRowPlain);
  EXPECT_EQ(row_kind(13, 21), kRowPlain);
  EXPECT_EQ(row_kind(14, 21), kRowSeed);
  EXPECT_EQ(row_kind(21, 21), kRowZero);
  for (int lq = 1; lq <= 3; ++lq) {
    for (int i = 1; i <= lq; ++i) EXPECT_EQ(row_kind(i, lq), kRowZero);
  }
  EXPECT_EQ(row_kind(3, 4), kRowSeed);  // short queries: every scoring row is a seed row
}

TEST(MirandaDefs, DefaultModel) {
  constexpr ScoreModel m = make_score_model(Params{});
  static_assert(m.threshold == 140 && m.open == -9 && m.extend == -4);
  static_assert(m.seed_open == -36 && m.seed_extend == -16);
  EXPECT_EQ(m.seed[A][U], 20);
  EXPECT_EQ(m.seed[G][U], 4);
  EXPECT_EQ(m.seed[N][A], -4);
  EXPECT_EQ(m.seed[C][C], -12);
  EXPECT_EQ(m.plain[C][G], 5);
  EXPECT_EQ(cell_score(m, 1, 21, A, U), 0);
  EXPECT_EQ(cell_score(m, 2, 21, A, U), 0);
  EXPECT_EQ(cell_score(m, 21, 21, A, U), 0);
  EXPECT_EQ(cell_score(m, 3, 21, A, U), 5);
  EXPECT_EQ(cell_score(m, 14, 21, A, U), 20);
  EXPECT_EQ(cell_score(m, 14, 21, U, G), 4);
  EXPECT_EQ(cell_score(m, 3, 3, A, U), 0);
  EXPECT_EQ(gap_open_cost(m, 13, 21), -9);
  EXPECT_EQ(gap_open_cost(m, 14, 21), -36);
  EXPECT_EQ(gap_extend_cost(m, 20, 21), -16);
  EXPECT_EQ(gap_extend_cost(m, 21, 21), -4);
  EXPECT_FALSE(target_gap_allowed(15, 21));
  EXPECT_TRUE(target_gap_allowed(21, 21));
}

TEST(MirandaDefs, TruncationTowardZero) {
  Params p;
  p.scale = 3.3;
  p.gap_open = -9.7;
  p.gap_extend = -2.5;
  p.score_threshold = 139.5;
  const ScoreModel m = make_score_model(p);
  EXPECT_EQ(m.threshold, 140);
  EXPECT_EQ(m.open, -9);          // trunc(-9.7)
  EXPECT_EQ(m.extend, -2);        // trunc(-2.5)
  EXPECT_EQ(m.seed_open, -32);    // trunc(-32.01)
  EXPECT_EQ(m.seed_extend, -8);   // trunc(-8.25)
  EXPECT_EQ(m.seed[A][U], 16);    // trunc(16.5)
  EXPECT_EQ(m.seed[G][U], 3);     // trunc(3.3)
  EXPECT_EQ(m.seed[N][A], -3);    // trunc(-3.3)
  EXPECT_EQ(m.seed[A][A], -9);    // trunc(-9.9)
  EXPECT_EQ(trunc_to_int(-0.99), 0);
  EXPECT_EQ(ceil_to_int(140.0), 140);
  EXPECT_EQ(ceil_to_int(-3.5), -3);
}

// The tie and clamping rules of one cell.
TEST(MirandaDefs, CellTieRules) {
  const Cell zero{};
  // A: ties between diagonal states prefer A, then B, then C.
  EXPECT_EQ(next_cell(Cell{7, 7, 7, kNone, kNone, kNone}, zero, zero, 5, -9, -4, true).pa, kA);
  EXPECT_EQ(next_cell(Cell{6, 7, 7, kNone, kNone, kNone}, zero, zero, 5, -9, -4, true).pa, kB);
  const Cell fromc = next_cell(Cell{6, 6, 7, kNone, kNone, kNone}, zero, zero, 5, -9, -4, true);
  EXPECT_EQ(fromc.pa, kC);
  EXPECT_EQ(fromc.a, 12);
  // A clamps at 0 and then has no predecessor (also exactly 0).
  const Cell clamped = next_cell(Cell{3, 0, 0, kNone, kNone, kNone}, zero, zero, -3, -9, -4, true);
  EXPECT_EQ(clamped.a, 0);
  EXPECT_EQ(clamped.pa, kNone);
  const Cell neg = next_cell(Cell{1, 0, 0, kNone, kNone, kNone}, zero, zero, -3, -9, -4, true);
  EXPECT_EQ(neg.a, 0);
  EXPECT_EQ(neg.pa, kNone);
  // B: extension only when strictly larger; never clamped.
  const Cell tie_b = next_cell(zero, Cell{20, 15, 0, kNone, kNone, kNone}, zero, 0, -9, -4, true);
  EXPECT_EQ(tie_b.b, 11);
  EXPECT_EQ(tie_b.pb, kA);
  const Cell ext_b = next_cell(zero, Cell{20, 16, 0, kNone, kNone, kNone}, zero, 0, -9, -4, true);
  EXPECT_EQ(ext_b.b, 12);
  EXPECT_EQ(ext_b.pb, kB);
  const Cell neg_b = next_cell(zero, zero, zero, 0, -9, -4, true);
  EXPECT_EQ(neg_b.b, -4);
  EXPECT_EQ(neg_b.pb, kB);
  // C: the same rule outside the seed; -1 from A in seed rows.
  const Cell tie_c = next_cell(zero, zero, Cell{20, 0, 15, kNone, kNone, kNone}, 0, -9, -4, true);
  EXPECT_EQ(tie_c.c, 11);
  EXPECT_EQ(tie_c.pc, kA);
  const Cell ext_c = next_cell(zero, zero, Cell{20, 0, 16, kNone, kNone, kNone}, 0, -9, -4, true);
  EXPECT_EQ(ext_c.pc, kC);
  const Cell seed_c = next_cell(zero, zero, Cell{100, 0, 90, kNone, kNone, kNone}, 0, -36, -16, false);
  EXPECT_EQ(seed_c.c, -1);
  EXPECT_EQ(seed_c.pc, kA);
}

TEST(MirandaDefs, BestTieRules) {
  EXPECT_EQ(best_of(5, 5, 5).state, kA);
  EXPECT_EQ(best_of(4, 5, 5).state, kB);
  EXPECT_EQ(best_of(4, 4, 5).state, kC);
  EXPECT_EQ(best_of(0, -4, -1).state, kNone);
  EXPECT_EQ(best_of(0, -4, -1).score, 0);
  EXPECT_EQ(best_of(0, 3, -1).score, 3);
  EXPECT_TRUE(is_candidate(Best{140, kA}, 140));
  EXPECT_TRUE(is_candidate(Best{150, kC}, 140));
  EXPECT_FALSE(is_candidate(Best{150, kB}, 140));
  EXPECT_FALSE(is_candidate(Best{139, kA}, 140));
}

}  // namespace
}  // namespace screen::miranda
