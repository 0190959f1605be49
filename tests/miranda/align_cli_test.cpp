// `screen align` end to end (the built executable): miRanda's '>' and '>>' lines byte for byte on the
// public vectors, the TSV format, the methods and thread counts agreeing, and the errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "miranda_test_util.hpp"
#include "tests/cli/run_screen.hpp"
#include "tests/cli/cli_temp_dir.hpp"

namespace screen::miranda {
namespace {

using screen::testing::run_screen;

struct CliCase {
  const char* queries;
  const char* targets;
  const char* expected;
  bool strict;
  std::vector<std::string> options{"--no-energy"};  // the vector's run: -noenergy unless given
};

class AlignCli : public ::testing::TestWithParam<CliCase> {};

// The report part of stdout: logs go to stderr, which run_screen merges, so -q keeps them out.
std::vector<std::string> align_lines(const CliCase& c, const std::vector<std::string>& extra, std::string* all = nullptr) {
  std::vector<std::string> args{"-q", "align", test::data_path(c.queries), test::data_path(c.targets), "--format", "miranda"};
  if (c.strict) args.push_back("--strict");
  args.insert(args.end(), c.options.begin(), c.options.end());
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_screen(args);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  if (all != nullptr) *all = r.out;
  return test::result_lines(r.out);
}

TEST_P(AlignCli, HitAndPairLinesMatchMirandaByteForByte) {
  const CliCase c = GetParam();
  const std::string expected = test::read_text(test::data_path(c.expected));
  const std::vector<std::string> want = test::result_lines(expected);
  ASSERT_GT(want.size(), 4u);
  std::string out;
  EXPECT_EQ(want, align_lines(c, {}, &out));
  EXPECT_EQ(test::report_body(expected), out);  // alignment blocks too
  EXPECT_EQ(want, align_lines(c, {"--method", "reference", "--threads", "1"}));
  EXPECT_EQ(want, align_lines(c, {"--method", "cpu", "--threads", "3", "--device", "cpu"}));
}

INSTANTIATE_TEST_SUITE_P(
    Miranda33a, AlignCli,
    ::testing::Values(CliCase{"bantam_stRNA.fasta", "hid_UTR.fasta", "examples_noenergy.out", false},
                      CliCase{"public_queries.fa", "public_targets.fa", "public_noenergy.out", false},
                      CliCase{"public_queries.fa", "public_targets.fa", "public_strict.out", true},
                      // miRanda's default run: energies on, as screen align's default.
                      CliCase{"public_queries.fa", "public_targets.fa", "public_energy.out", false, {}},
                      CliCase{"hsa200.fa", "../../../data/sarscov2_NC_045512.2.fa", "hsa200_en20.out", false,
                              {"--energy-threshold", "-20"}}),
    [](const ::testing::TestParamInfo<CliCase>& param_info) {
      const std::string e = param_info.param.expected;
      return e.substr(0, e.find('.'));
    });

using screen::testing::CliTempDir;

TEST(AlignCliTsv, HeaderAndOneRowPerHitToAFile) {
  CliTempDir dir;
  const std::string out = dir.path("hits.tsv");
  const auto r = run_screen({"-q", "align", test::data_path("public_queries.fa"), test::data_path("public_targets.fa"),
                             "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string text = test::read_text(out);
  ASSERT_EQ(text.rfind("query\ttarget\tscore\tqstart\tqend\trstart\trend\t", 0), 0u) << text;
  ASSERT_NE(text.find("\ttarget_aln\tenergy\n"), std::string::npos) << text;
  std::size_t rows = 0;
  for (char ch : text) rows += ch == '\n';
  EXPECT_EQ(rows, 1u + 16u);  // header + the 16 hits of public_energy.out
  EXPECT_NE(text.find("pq1\tpt1\t210\t2\t23\t34\t57\t21\t100.00\t100.00\t"), std::string::npos) << text;
  EXPECT_NE(text.find("\t-29.71\n"), std::string::npos) << text;  // pq1 x pt0's energy in public_energy.out

  const auto plain = run_screen({"-q", "align", test::data_path("public_queries.fa"), test::data_path("public_targets.fa"),
                                 "--no-energy"});
  ASSERT_EQ(plain.exit_code, 0) << plain.out;
  EXPECT_EQ(plain.out.find("energy"), std::string::npos) << plain.out;
}

TEST(AlignCliErrors, UnsupportedChoicesAndBadInput) {
  CliTempDir dir;
  const std::string q = test::data_path("public_queries.fa"), t = test::data_path("public_targets.fa");
  auto r = run_screen({"align", q, t, "--format", "h5"});
  EXPECT_EQ(r.exit_code, 2) << r.out;  // an HDF5 file needs --out
  EXPECT_NE(r.out.find("--out"), std::string::npos) << r.out;
  // Without a usable GPU (or without CUDA in the build), --device gpu is a resource error naming why.
  r = run_screen({"align", q, t, "--device", "gpu"});
  EXPECT_TRUE(r.exit_code == 6 || r.exit_code == 0) << r.out;
  if (r.exit_code == 6) {
    EXPECT_NE(r.out.find("GPU"), std::string::npos) << r.out;
  }
  r = run_screen({"align", q, t, "--method", "fast"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  r = run_screen({"align", q, t, "--format", "xml"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  r = run_screen({"align", q, t, "--threads", "-2"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  r = run_screen({"align", q});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  r = run_screen({"align", q, t, "--temperature", "400"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--temperature"), std::string::npos) << r.out;
  r = run_screen({"align", q, t, "--energy-threshold", "cold"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  // A character miRanda rejects: named with file, line and column.
  const std::string bad = dir.write("bad.fa", ">mir1\nUGAGGUAGUAG\nGUUG*AUAGUU\n");
  r = run_screen({"align", bad, t});
  EXPECT_EQ(r.exit_code, 4) << r.out;
  EXPECT_NE(r.out.find(bad + ":3:5:"), std::string::npos) << r.out;
  // X and IUPAC letters are accepted (masked) and shown as written.
  const std::string mq = dir.write("x.fa", ">let7x\nUGAGGUAGUAGGUUGUAUAGUX\n");
  const std::string mt = dir.write("t.fa", ">site\nGGGGCCCCAAAACUAUACAACCUACUARCUCAGGGGCCCCGGGG\n");
  r = run_screen({"-q", "align", mq, mt, "--format", "miranda"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("   Query:    3' x"), std::string::npos) << r.out;  // X at the 3' end, in the flank
  EXPECT_NE(r.out.find("ACUAR"), std::string::npos) << r.out;            // R aligned, shown as written
  EXPECT_EQ(test::result_lines(r.out).size(), 2u) << r.out;
}

}  // namespace
}  // namespace screen::miranda
