// The reference on hand-checked and constructed cases.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "miranda_test_util.hpp"
#include "seq/sequence_set.hpp"
#include "stages/miranda/reference.hpp"

namespace screen::miranda {
namespace {

using test::codes_of;

std::string revcomp(const std::string& s) {
  std::string r(s.rbegin(), s.rend());
  for (char& c : r) c = c == 'A' ? 'U' : c == 'U' ? 'A' : c == 'G' ? 'C' : c == 'C' ? 'G' : 'N';
  return r;
}

struct Pair {
  std::string q, t;
  std::vector<std::uint8_t> qc, tc;
  Pair(std::string query, std::string target)
      : q(std::move(query)), t(std::move(target)), qc(codes_of(q)), tc(codes_of(t)) {}
  SeqView qv() const { return SeqView{qc.data(), qc.size(), q.data()}; }
  SeqView tv() const { return SeqView{tc.data(), tc.size(), t.data()}; }
};

const std::string kLet7 = "UGAGGUAGUAGGUUGUAUAGUU";  // 22 nt

// A perfect site: rows 3..14 score 5, the seed rows 15..21 score 20, rows 1, 2 and 22 score 0.
TEST(MirandaReference, HandCheckedPerfectSite) {
  const Pair p(kLet7, "GGGGG" + revcomp(kLet7) + "GGGGG");
  ASSERT_EQ(revcomp(kLet7), "AACUAUACAACCUACUACCUCA");
  const PairResult r = align_pair(p.qv(), p.tv(), Params{});
  ASSERT_EQ(r.hits.size(), 1u);
  const Hit& h = r.hits[0];
  EXPECT_EQ(h.score, 12 * 5 + 7 * 20);
  // The end cells (21, 26) and (22, 27) tie at 200: the smaller target end wins.
  EXPECT_EQ(h.alignment.qe, 21);
  EXPECT_EQ(h.alignment.re, 26);
  EXPECT_EQ(h.alignment.qs, 2);
  EXPECT_EQ(h.alignment.rs, 7);
  EXPECT_EQ(h.qstart, 2);
  EXPECT_EQ(h.qend, 21);
  EXPECT_EQ(h.rstart, 6);
  EXPECT_EQ(h.rend, 27);
  EXPECT_EQ(h.align_len, 19);
  EXPECT_DOUBLE_EQ(h.identity, 100.0);
  EXPECT_DOUBLE_EQ(h.similarity, 100.0);
  EXPECT_EQ(h.query_line, "uuGAUAUGUUGGAUGAUGGAGu");
  EXPECT_EQ(h.match_line, "  ||||||||||||||||||| ");
  EXPECT_EQ(h.target_line, "aaCUAUACAACCUACUACCUCa");
  EXPECT_FALSE(r.truncated);
}

// A wobble and a mismatch outside the seed, and one wobble inside it.
TEST(MirandaReference, HandCheckedImperfectSite) {
  std::string site = revcomp(kLet7);
  // site[k] pairs with query position 22 - k (1-based from the 5' end): row i = k + 1.
  site[5] = 'G';   // row 6 (position 17): query A vs G: mismatch -3 instead of +5
  site[10] = 'U';  // row 11 (position 12): query G vs U: wobble +1 instead of +5
  site[17] = 'U';  // row 18 (position 5, seed): query G vs U: wobble 4 instead of 20
  const Pair p(kLet7, "CCCCC" + site + "CCCCC");
  const PairResult r = align_pair(p.qv(), p.tv(), Params{});
  ASSERT_EQ(r.hits.size(), 1u);
  const Hit& h = r.hits[0];
  EXPECT_EQ(h.score, 200 - 8 - 4 - 16);
  EXPECT_EQ(h.match_line, "  ||| ||||:||||||:||| ");
  EXPECT_EQ(h.align_len, 19);
  EXPECT_EQ(h.qstart, 2);
  EXPECT_EQ(h.qend, 21);
  EXPECT_NEAR(h.identity, 100.0 * 16 / 19, 1e-12);
  EXPECT_NEAR(h.similarity, 100.0 * 18 / 19, 1e-12);
}

TEST(MirandaReference, ShortQueriesGiveNoHits) {
  Params p;
  p.score_threshold = 1;
  for (const std::string q : {"A", "UA", "UAC"}) {
    const Pair pr(q, std::string(40, 'U') + revcomp(q) + std::string(40, 'A'));
    EXPECT_TRUE(align_pair(pr.qv(), pr.tv(), p).hits.empty()) << q;
    DpMatrix m;
    m.compute(pr.qv(), pr.tv(), make_score_model(p));
    for (int i = 0; i <= m.rows(); ++i) {
      for (int j = 0; j <= m.col_end(); ++j) EXPECT_EQ(m.best(i, j).score, 0);
    }
  }
  // Four nucleotides already score (row 3 is a seed row).
  const Pair four("UACG", "AAA" + revcomp("UACG") + "AAA");
  EXPECT_FALSE(align_pair(four.qv(), four.tv(), p).hits.empty());
}

TEST(MirandaReference, LongQueryOf64Nucleotides) {
  std::mt19937 rng(7);
  std::string q;
  for (int k = 0; k < 64; ++k) q.push_back("ACGU"[rng() % 4]);
  const Pair p(q, "CCCC" + revcomp(q) + "CCCC");
  const PairResult r = align_pair(p.qv(), p.tv(), Params{});
  ASSERT_FALSE(r.hits.empty());
  const Hit& h = r.hits[0];
  EXPECT_EQ(h.score, (64 - 2 - 1 - 7) * 5 + 7 * 20);
  EXPECT_EQ(h.qstart, 2);
  EXPECT_EQ(h.qend, 63);
  EXPECT_EQ(h.align_len, 61);
  EXPECT_EQ(h.rstart, 5);
  EXPECT_EQ(h.rend, 68);
  EXPECT_EQ(h.query_line.size(), 64u);
}

TEST(MirandaReference, MaskedBasesScoreMinusOne) {
  std::string site = revcomp(kLet7);
  site[4] = 'N';  // row 5, plain: -1 instead of +5
  const Pair p(kLet7, "CCCCC" + site + "CCCCC");
  const PairResult r = align_pair(p.qv(), p.tv(), Params{});
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_EQ(r.hits[0].score, 200 - 6);
  EXPECT_EQ(r.hits[0].target_line, "aaCUNUACAACCUACUACCUCa");
  EXPECT_EQ(r.hits[0].match_line, "  || |||||||||||||||| ");
}

// Inputs through the FASTA reader: lower case, T for U, IUPAC codes and X are masked (-1 against
// anything) and displayed as written.
TEST(MirandaReference, FastaInputsWithIupacAndX) {
  std::string site = revcomp(kLet7);
  for (char& c : site) c = c == 'U' ? 't' : static_cast<char>(c + ('a' - 'A'));
  site[4] = 'R';   // row 5, plain: -1 instead of +5
  site[8] = 'x';   // row 9, plain: -1 instead of +5
  const std::string target_letters = "ggggg" + site + "ggggg";
  const seq::SequenceSet q = seq::parse_fasta(">q\n" + kLet7 + "\n", "q.fa", {});
  seq::FastaOptions mask;
  mask.mask_x = true;
  const seq::SequenceSet t = seq::parse_fasta(">t some description\n" + target_letters.substr(0, 20) +
                                                  "\n" + target_letters.substr(20) + "\n",
                                              "t.fa", mask);
  ASSERT_EQ(t.length(0), target_letters.size());
  EXPECT_EQ(t.codes(0)[9], seq::N);
  const PairResult r = align_pair(SeqView{q.codes(0), q.length(0), kLet7.data()},
                                  SeqView{t.codes(0), t.length(0), target_letters.data()}, Params{});
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_EQ(r.hits[0].score, 200 - 12);
  EXPECT_EQ(r.hits[0].target_line, "aaCTRTACXACCTACTACCTCa");
  EXPECT_EQ(r.hits[0].match_line, "  || ||| |||||||||||| ");
  // Without letters the display falls back to the codes' letters.
  const PairResult plain = align_pair(SeqView{q.codes(0), q.length(0), nullptr},
                                      SeqView{t.codes(0), t.length(0), nullptr}, Params{});
  ASSERT_EQ(plain.hits.size(), 1u);
  EXPECT_EQ(plain.hits[0].target_line, "aaCUNUACNACCUACUACCUCa");
}

// Flanks beyond the target's ends are shown as '-' and not counted in the positions.
TEST(MirandaReference, FlanksAtTheTargetEnds) {
  const std::string site = revcomp(kLet7);
  const Pair p(kLet7, site.substr(1, 20));  // target: rows 2..21 of the site only
  const PairResult r = align_pair(p.qv(), p.tv(), Params{});
  ASSERT_EQ(r.hits.size(), 1u);
  const Hit& h = r.hits[0];
  EXPECT_EQ(h.target_line, "-aCUAUACAACCUACUACCUC-");
  EXPECT_EQ(h.rstart, 1);
  EXPECT_EQ(h.rend, 20);
  EXPECT_EQ(h.qstart, 2);
  EXPECT_EQ(h.qend, 21);
}

// Gaps: a bulge in the target outside the seed is a query gap (state B) of cost -9.
TEST(MirandaReference, QueryGapOutsideTheSeed) {
  std::string site = revcomp(kLet7);
  site.insert(6, "C");  // an extra target base between rows 6 and 7
  const Pair p(kLet7, "GGGGG" + site + "GGGGG");
  const PairResult r = align_pair(p.qv(), p.tv(), Params{});
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_EQ(r.hits[0].score, 200 - 9);
  EXPECT_EQ(r.hits[0].align_len, 20);
  EXPECT_EQ(r.hits[0].query_line, "uuGAUA-UGUUGGAUGAUGGAGu");
  EXPECT_EQ(r.hits[0].target_line, "aaCUAUCACAACCUACUACCUCa");
}

TEST(MirandaReference, SortOrder) {
  std::vector<Candidate> c = {{150, 4, 30, kA}, {160, 5, 40, kA}, {150, 3, 30, kC}, {150, 9, 20, kA}};
  sort_candidates(c);
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0].score, 160);
  EXPECT_EQ(c[1].j, 20);
  EXPECT_EQ(c[2].j, 30);
  EXPECT_EQ(c[2].i, 3);
  EXPECT_EQ(c[3].i, 4);
}

TEST(MirandaReference, DiagonalSuppression) {
  // Diagonals (j - i): 5, 11, 17, 12, -1, -2.
  const std::vector<Candidate> sorted = {{200, 10, 15, kA}, {190, 10, 21, kA}, {180, 10, 27, kA},
                                         {170, 10, 22, kA}, {160, 10, 9, kA},  {150, 10, 8, kA}};
  const std::vector<Candidate> kept = suppress_diagonals(sorted);
  // 11 is removed by 5 (|11 - 5| = 6); 17 survives: only 11 was within 6, and 11 was dead; 12 is
  // removed by 17 (and by 5? |12 - 5| = 7: no); -1 is removed by 5; -2 survives (|-2 - 5| = 7).
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept[0].diagonal(), 5);
  EXPECT_EQ(kept[1].diagonal(), 17);
  EXPECT_EQ(kept[2].diagonal(), -2);
  EXPECT_TRUE(suppress_diagonals({}).empty());
}

TEST(MirandaReference, OverlapFilter) {
  Alignment a;
  a.rs = 100;
  a.re = 120;
  const std::vector<Alignment> accepted = {a};
  Alignment b;
  b.rs = 114;  // overlap 120 - 114 + 1 = 7 > 6
  b.re = 130;
  EXPECT_TRUE(overlaps_accepted(b, accepted));
  b.rs = 115;  // overlap 6
  EXPECT_FALSE(overlaps_accepted(b, accepted));
  b.rs = 80;   // overlap at the other end: 106 - 100 + 1 = 7
  b.re = 106;
  EXPECT_TRUE(overlaps_accepted(b, accepted));
  b.re = 105;
  EXPECT_FALSE(overlaps_accepted(b, accepted));
  b.rs = 90;   // contains nothing of a
  b.re = 99;
  EXPECT_FALSE(overlaps_accepted(b, accepted));
}

// A poly-U query against a poly-A target scores 200 on every diagonal that holds rows 3..21.
// Sorted by end column, diagonal -2 (columns 1..19, interval [0, 19]) comes first; diagonals within
// 6 of a kept one are suppressed; of the survivors 5, 12, 19, -9, diagonal 5 ([7, 26]) overlaps
// [0, 19] by 13, 12 ([14, 33]) by exactly 6 (kept), 19 ([21, 40]) overlaps [14, 33] by 13 and -9
// ([0, 12]) overlaps [0, 19].
TEST(MirandaReference, OverlapFilterOnRepeats) {
  const Pair p(std::string(22, 'U'), std::string(40, 'A'));
  const PairResult r = align_pair(p.qv(), p.tv(), Params{});
  ASSERT_EQ(r.hits.size(), 2u);
  EXPECT_EQ(r.hits[0].score, 200);
  EXPECT_EQ(r.hits[0].alignment.rs, 0);
  EXPECT_EQ(r.hits[0].alignment.re, 19);
  EXPECT_EQ(r.hits[0].rstart, 1);  // both 3' flank columns (-1, 0) lie before the target
  EXPECT_EQ(r.hits[0].rend, 20);
  EXPECT_EQ(r.hits[0].target_line, "--AAAAAAAAAAAAAAAAAAAa");
  EXPECT_EQ(r.hits[1].alignment.rs, 14);
  EXPECT_EQ(r.hits[1].alignment.re, 33);
  EXPECT_EQ(r.hits[1].rstart, 13);
  EXPECT_EQ(r.hits[1].rend, 34);
}

Alignment diagonal_alignment(int d) {  // rows 3..21 on diagonal d (j - i)
  Alignment a;
  a.score = 200;
  a.qs = 2;
  a.qe = 21;
  a.rs = 2 + d;
  a.re = 21 + d;
  a.ops = std::string(19, 'M');
  return a;
}

// A hit that passes the overlap test is accepted for later comparisons even when strict mode drops it.
TEST(MirandaReference, StrictDropStillBlocksOverlaps) {
  std::string t(40, 'A');
  t[14] = 'C';  // column 15: faces row 17 (a seed row) on diagonal -2
  const Pair p(std::string(22, 'U'), t);
  Params strict;
  strict.strict = true;
  HitCollector c(p.qv(), p.tv(), strict, 0, 0);
  EXPECT_TRUE(c.offer(diagonal_alignment(-2)));  // fails strict, but accepted for overlaps
  EXPECT_TRUE(c.offer(diagonal_alignment(5)));   // passes strict, overlaps [0, 19] by 13: dropped
  EXPECT_TRUE(c.offer(diagonal_alignment(12)));  // overlaps by 6: reported
  const PairResult r = c.take();
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_EQ(r.hits[0].alignment.re, 33);
  HitCollector loose(p.qv(), p.tv(), strict, 0, 0);
  EXPECT_TRUE(loose.offer(diagonal_alignment(5)));
  EXPECT_EQ(loose.take().hits.size(), 1u);
}

TEST(MirandaReference, HitCapTruncates) {
  const std::string site = revcomp(kLet7);
  std::string t;
  for (int k = 0; k < 5; ++k) t += "GGGGGGGGGG" + site;
  const Pair p(kLet7, t);
  Params params;
  EXPECT_EQ(align_pair(p.qv(), p.tv(), params).hits.size(), 5u);
  params.max_hits_per_pair = 3;
  const PairResult r = align_pair(p.qv(), p.tv(), params);
  EXPECT_EQ(r.hits.size(), 3u);
  EXPECT_TRUE(r.truncated);
  params.max_hits_per_pair = 5;
  EXPECT_FALSE(align_pair(p.qv(), p.tv(), params).truncated);
}

TEST(MirandaReference, StrictSeedTest) {
  Hit h;
  // 3'->5' display; the 5' end is on the right. Positions 2..8 are the 7 characters before the last.
  h.query_line = "uuGAUAUGUUGGAUGAUGGAGu";
  h.match_line = "  ||||||||||||||||||| ";
  EXPECT_TRUE(passes_strict(h));
  h.match_line = "  |||||||||||||:||||| ";  // a wobble at position 7
  EXPECT_FALSE(passes_strict(h));
  h.match_line = "  ||||||||||||  ||||| ";  // mismatches at positions 7 and 8
  EXPECT_FALSE(passes_strict(h));
  h.match_line = "  |||||||||||| |||||| ";  // a mismatch at position 8 (index 22 - 8)
  EXPECT_FALSE(passes_strict(h));
  h.match_line = "  ||||||||||| ||||||| ";  // a mismatch at position 9: outside the seed
  EXPECT_TRUE(passes_strict(h));
  // A query gap inside the seed.
  h.query_line = "uuGAUAUGUUGGAUGAU-GGAGu";
  h.match_line = "  |||||||||||||||| ||| ";
  EXPECT_FALSE(passes_strict(h));
  // A query gap right after position 8 (between 8 and 9) is outside the seed (public_strict.out).
  h.query_line = "uuGAUAUGUUGGAU-GAUGGAGu";
  h.match_line = "  |||||||||||| ||||||| ";
  EXPECT_TRUE(passes_strict(h));
  // ... and one between positions 7 and 8 is inside.
  h.query_line = "uuGAUAUGUUGGAUG-AUGGAGu";
  h.match_line = "  ||||||||||||| |||||| ";
  EXPECT_FALSE(passes_strict(h));
  // Seed positions in the flank are not aligned.
  h.query_line = "uuGAUAUGUUGGAUGAUGGagu";
  h.match_line = "  |||||||||||||||||   ";
  EXPECT_FALSE(passes_strict(h));
}

TEST(MirandaReference, StrictModeDropsASeedWobble) {
  std::string weak = revcomp(kLet7);
  weak[17] = 'U';  // seed wobble: fails strict
  const Pair p(kLet7, "GGGGG" + weak + "GGGGG");
  Params strict;
  strict.strict = true;
  EXPECT_EQ(align_pair(p.qv(), p.tv(), Params{}).hits.size(), 1u);
  EXPECT_TRUE(align_pair(p.qv(), p.tv(), strict).hits.empty());
}

TEST(MirandaReference, MaxPositiveSpan) {
  const ScoreModel m = make_score_model(Params{});
  // Lq = 22: rows 3..14 gain at most 5, the seed rows 15..21 at most 20: 200; gaps cost >= 4.
  EXPECT_EQ(max_positive_span(22, m), 22 + 200 / 4);
  EXPECT_EQ(max_positive_span(3, m), 3);
  Params free_gaps;
  free_gaps.gap_extend = -0.5;  // trunc: extension costs nothing outside the seed
  EXPECT_EQ(max_positive_span(22, make_score_model(free_gaps)), -1);
  EXPECT_EQ(traceback_window_begin(22, 5000, m), 5000 - 2 * 72 - 1);
  EXPECT_EQ(traceback_window_begin(22, 100, m), 1);
  EXPECT_EQ(traceback_window_begin(22, 5000, make_score_model(free_gaps)), 1);
}

// A DP over the window traceback_window_begin gives reproduces the whole-target traceback of every
// candidate (the basis of a fast path that scans for candidates and re-aligns windows).
TEST(MirandaReference, WindowedTracebackEqualsWholeTarget) {
  std::mt19937 rng(11);
  int traced = 0;
  for (int rep = 0; rep < 40; ++rep) {
    Params params;
    params.score_threshold = rep % 2 == 0 ? 140 : 60;
    params.gap_extend = rep % 4 < 2 ? -4.0 : -1.0;
    const ScoreModel model = make_score_model(params);
    std::string q, t;
    const int lq = 12 + static_cast<int>(rng() % 15);
    for (int k = 0; k < lq; ++k) q.push_back("ACGU"[rng() % 4]);
    for (int k = 0; k < 1500; ++k) t.push_back("ACGU"[rng() % 4]);
    for (int copy = 0; copy < 4; ++copy) {
      std::string site = revcomp(q);
      site[rng() % site.size()] = "ACGU"[rng() % 4];
      site.insert(rng() % site.size(), std::string(1 + rng() % 3, 'C'));
      t.replace(100 + rng() % 1300, site.size(), site);
    }
    const Pair p(q, t);
    DpMatrix whole;
    whole.compute(p.qv(), p.tv(), model);
    std::vector<Candidate> c = collect_candidates(whole, model.threshold);
    sort_candidates(c);
    for (const Candidate& cand : c) {  // every candidate, suppressed or not
      const Alignment full = trace_back(whole, cand);
      DpMatrix win;
      win.compute(p.qv(), p.tv(), model, traceback_window_begin(lq, cand.j, model), cand.j);
      const Alignment w = trace_back(win, cand);
      ASSERT_EQ(w.ops, full.ops);
      EXPECT_EQ(w.rs, full.rs);
      EXPECT_EQ(w.qs, full.qs);
      EXPECT_EQ(w.score, full.score);
      ++traced;
    }
  }
  EXPECT_GT(traced, 100);
}

}  // namespace
}  // namespace screen::miranda
