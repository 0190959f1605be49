// The output writers on hand-made hits.
#include <gtest/gtest.h>

#include <sstream>

#include "stages/miranda/miranda_format.hpp"

namespace screen::miranda {
namespace {

Hit sample() {
  Hit h;
  h.score = 167;
  h.qstart = 2;
  h.qend = 20;
  h.rstart = 3340;
  h.rend = 3360;
  h.align_len = 18;
  h.identity = 100.0 * 15 / 18;
  h.similarity = 100.0 * 17 / 18;
  h.query_line = "gtCGAAAGTTTTACTAGAGTg";
  h.match_line = "  |:||||| |||||||||: ";
  h.target_line = "taGTTTTCACAATGATCTCGg";
  return h;
}

TEST(MirandaFormat, HitLine) {
  EXPECT_EQ(format_hit_line(sample(), "q", "t"),
            ">q\tt\t167.00\t0.00\t2 20\t3340 3360\t18\t83.33%\t94.44%\n");
  EXPECT_EQ(format_hit_line(sample(), "q", "t", -24.54),
            ">q\tt\t167.00\t-24.54\t2 20\t3340 3360\t18\t83.33%\t94.44%\n");
}

TEST(MirandaFormat, PairLine) {
  Hit a = sample(), b = sample();
  b.score = 156;
  b.rstart = 2505;
  EXPECT_EQ(format_pair_line({a, b}, "q", "t", 7, 21, 3902),
            ">>q\tt\t323.00\t0.0\t167.00\t0.0\t7\t21\t3902\t 3340 2505\n");
  const std::vector<double> e = {-24.54, -20.03};
  EXPECT_EQ(format_pair_line({a, b}, "q", "t", 1, 21, 3902, &e),
            ">>q\tt\t323.00\t-44.57\t167.00\t-24.54\t1\t21\t3902\t 3340 2505\n");
}

TEST(MirandaFormat, AlignmentBlock) {
  EXPECT_EQ(format_alignment_block(sample()),
            "\n   Forward:\tScore: 167.000000  Q:2 to 20  R:3340 to 3360 Align Len (18) (83.33%) (94.44%)\n"
            "\n"
            "   Query:    3' gtCGAAAGTTTTACTAGAGTg 5'\n"
            "                  |:||||| |||||||||: \n"
            "   Ref:      5' taGTTTTCACAATGATCTCGg 3'\n"
            "\n\nScores for this hit:\n");
  const double e = -29.709999;
  const std::string with_energy = format_alignment_block(sample(), &e);
  EXPECT_NE(with_energy.find("3'\n\n   Energy:  -29.709999 kCal/Mol\n\nScores for this hit:\n"),
            std::string::npos);
}

TEST(MirandaFormat, Tsv) {
  EXPECT_EQ(format_tsv_header(),
            "query\ttarget\tscore\tqstart\tqend\trstart\trend\tlength\tidentity\tsimilarity\t"
            "site_type\tquery_aln\tmatch\ttarget_aln\n");
  EXPECT_EQ(format_tsv_row(sample(), "q", "t"),
            "q\tt\t167\t2\t20\t3340\t3360\t18\t83.33\t94.44\toffset-6mer\tgtCGAAAGTTTTACTAGAGTg\t  |:||||| |||||||||: \t"
            "taGTTTTCACAATGATCTCGg\n");
}

TEST(MirandaFormat, ReportWriterCountsEveryPair) {
  std::ostringstream out;
  ReportWriter w(out, false);
  w.pair({}, "q", "t0", 21, 10);
  w.pair({sample()}, "q", "t1", 21, 3902);
  w.pair({}, "q", "t2", 21, 10);
  w.finish();
  EXPECT_EQ(w.pairs_examined(), 3);
  EXPECT_EQ(out.str(),
            ">q\tt1\t167.00\t0.00\t2 20\t3340 3360\t18\t83.33%\t94.44%\n"
            ">>q\tt1\t167.00\t0.0\t167.00\t0.0\t2\t21\t3902\t 3340\n");
}

}  // namespace
}  // namespace screen::miranda
