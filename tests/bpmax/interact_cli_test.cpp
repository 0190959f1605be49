// `screen interact` end to end (the built executable): QUERIES x TARGETS and --pairs give the
// batch API's rows, the header and the traceback column, half-unit scores, the options and errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bpmax_test_util.hpp"
#include "stages/bpmax/interact.hpp"
#include "tests/cli/run_screen.hpp"
#include "tests/cli/cli_temp_dir.hpp"

namespace screen::bpmax {
namespace {

using screen::testing::run_screen;

using screen::testing::CliTempDir;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::vector<std::string> kQueries{"GAUCACAGUCUAC", "UUAGCUUAUCAGACUGAUGUUGA"};
const std::vector<std::string> kTargets{"ACUGCUCACUCCAACCCCGGCCCCUGGUAGACUGUGAUCGGUGCUUCAGAGU",
                                        "CAACAUCAGUCUGAUAAGCUAAGGGGAAAUUUCCCC", "GGGGAAAACCCC"};

std::string fasta(const std::vector<std::string>& seqs, const std::string& prefix) {
  std::string s;
  for (std::size_t k = 0; k < seqs.size(); ++k) s += ">" + prefix + std::to_string(k + 1) + " x\n" + seqs[k] + "\n";
  return s;
}

// The rows the batch API gives for every query x target, as the command should print them.
std::string expected_rows(const Params& p, bool traceback, int w2) {
  Params pw = p;
  pw.target_window = w2;
  std::string text = traceback ? "query\ttarget\tscore\tsite_start\tsite_end\tstructure\n"
                               : "query\ttarget\tscore\tsite_start\tsite_end\n";
  for (std::size_t q = 0; q < kQueries.size(); ++q)
    for (std::size_t t = 0; t < kTargets.size(); ++t) {
      const auto x = test::codes(kQueries[q]), y = test::codes(kTargets[t]);
      const SiteResult r = interact_reference(x.data(), static_cast<int>(x.size()), y.data(),
                                              static_cast<int>(y.size()), pw, traceback);
      text += "q" + std::to_string(q + 1) + "\tt" + std::to_string(t + 1) + "\t" + format_score(r.score, p.weights.scale) +
              "\t" + std::to_string(r.target_begin) + "\t" + std::to_string(r.target_end);
      if (traceback) text += "\t" + r.structure->dot_bracket;
      text += "\n";
    }
  return text;
}

TEST(InteractCli, QueriesTimesTargetsMatchTheReference) {
  CliTempDir dir;
  const std::string qf = dir.write("q.fa", fasta(kQueries, "q")), tf = dir.write("t.fa", fasta(kTargets, "t"));
  const Params p;
  auto r = run_screen({"-q", "interact", qf, tf, "--out", dir.path("out.tsv")});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(read_text(dir.path("out.tsv")), expected_rows(p, false, 0));

  r = run_screen({"-q", "interact", qf, tf, "--traceback", "--target-window", "20", "--threads", "2", "--method", "cpu",
                  "--device", "cpu", "--out", dir.path("tb.tsv")});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string want = expected_rows(p, true, 20);
  EXPECT_EQ(read_text(dir.path("tb.tsv")), want);
  r = run_screen({"-q", "interact", qf, tf, "--traceback", "--target-window", "20", "--threads", "1", "--method",
                  "reference", "--out", dir.path("ref.tsv")});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(read_text(dir.path("ref.tsv")), want);
}

TEST(InteractCli, HalfUnitWeightsPrintHalves) {
  CliTempDir dir;
  const std::string qf = dir.write("q.fa", fasta(kQueries, "q")), tf = dir.write("t.fa", fasta(kTargets, "t"));
  Params p;
  p.weights = make_pair_weights(3, 1, 1.5, "t");
  const auto r = run_screen({"-q", "interact", qf, tf, "--weights", "AU=1,GU=1.5", "--out", dir.path("o.tsv")});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string got = read_text(dir.path("o.tsv"));
  EXPECT_EQ(got, expected_rows(p, false, 0));
  EXPECT_NE(got.find(".5\t"), std::string::npos) << got;  // a half-unit score is printed as such
}

TEST(InteractCli, PairsFileGivesOneRowPerRecord) {
  CliTempDir dir;
  std::string text;
  for (std::size_t k = 0; k < kTargets.size(); ++k)
    text += ">pair" + std::to_string(k) + "\n" + kQueries[k % 2] + "&\n" + kTargets[k] + "\n";
  const std::string pf = dir.write("pairs.fa", text);
  const auto r = run_screen({"-q", "interact", "--pairs", pf, "--traceback"});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::string want = "query\ttarget\tscore\tsite_start\tsite_end\tstructure\n";
  for (std::size_t k = 0; k < kTargets.size(); ++k) {
    const auto x = test::codes(kQueries[k % 2]), y = test::codes(kTargets[k]);
    const SiteResult s = interact_reference(x.data(), static_cast<int>(x.size()), y.data(), static_cast<int>(y.size()),
                                            Params{}, true);
    want += "pair" + std::to_string(k) + "\tpair" + std::to_string(k) + "\t" + format_score(s.score, 1) + "\t1\t" +
            std::to_string(y.size()) + "\t" + s.structure->dot_bracket + "\n";
  }
  EXPECT_EQ(r.out, want);
}

TEST(InteractCli, Errors) {
  CliTempDir dir;
  const std::string qf = dir.write("q.fa", fasta(kQueries, "q")), tf = dir.write("t.fa", fasta(kTargets, "t"));
  // Without a usable GPU (or without CUDA in the build), --device gpu is a resource error naming why.
  auto r = run_screen({"interact", qf, tf, "--device", "gpu"});
  EXPECT_TRUE(r.exit_code == 6 || r.exit_code == 0) << r.out;
  if (r.exit_code == 6) {
    EXPECT_NE(r.out.find("GPU"), std::string::npos) << r.out;
  }
  r = run_screen({"interact", qf, tf, "--device", "gpu", "--method", "reference"});
  EXPECT_TRUE(r.exit_code == 6 || r.exit_code == 2) << r.out;  // no GPU, or --method with the GPU
  r = run_screen({"interact", qf, tf, "--format", "h5"});
  EXPECT_EQ(r.exit_code, 2) << r.out;  // an HDF5 file needs --out
  r = run_screen({"interact", qf, tf, "--format", "csv"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  r = run_screen({"interact", qf, tf, "--method", "fast"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  r = run_screen({"interact", qf});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  r = run_screen({"interact", qf, tf, "--pairs", qf});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  r = run_screen({"interact", qf, tf, "--target-window", "-1"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  r = run_screen({"interact", qf, tf, "--weights", "CG=0.3"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  const std::string bad = dir.write("bad.fa", ">a\nACGU&AA\n>b\nAC&G&U\n");
  r = run_screen({"interact", "--pairs", bad, "--out", dir.path("never.tsv")});
  EXPECT_EQ(r.exit_code, 4) << r.out;
  EXPECT_NE(r.out.find(bad + ":4:5:"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir.path("never.tsv")));
  const std::string none = dir.write("none.fa", ">a\nACGUAA\n");
  r = run_screen({"interact", "--pairs", none});
  EXPECT_EQ(r.exit_code, 4) << r.out;
  EXPECT_NE(r.out.find(none + ":1: record 'a' has no '&'"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace screen::bpmax
