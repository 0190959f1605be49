// One validation of each parameter: a value the manifest refuses is refused on the command line of
// the single-shot commands and of run/plan, with the rule's own words, and a value the manifest
// accepts is accepted there too.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "manifest/param_rules.hpp"
#include "tests/cli/cli_temp_dir.hpp"
#include "tests/cli/run_screen.hpp"

namespace screen::testing {
namespace {

namespace rules = manifest::rules;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class OptionRules : public ::testing::Test {
 protected:
  void SetUp() override {
    write("q.fa", ">q1\nUGAGGUAGUAGGUUGUAUAGUU\n");
    write("t.fa", ">t1\nAACUAUACAACCUACUACCUCAGGAAACUAUACAACCUACUACCUCAGG\n");
  }
  std::string write(const std::string& name, const std::string& text) const {
    return dir_.write(name, text);
  }
  // A manifest with `stage_yaml` under stages: and `extra` at the top level (resources: devices cpu,
  // unless `extra` has a resources section of its own).
  std::string manifest(const std::string& stage_yaml, const std::string& extra = "") const {
    const std::string resources = contains(extra, "resources:") ? "" : "resources:\n  devices: cpu\n";
    return write("job.yaml", "job:\n  name: rules\n  output: " + dir_.path("out") +
                                 "\nqueries:\n  - name: q\n    fasta: " + dir_.path("q.fa") +
                                 "\ntargets:\n  - name: t\n    fasta: " + dir_.path("t.fa") + "\nstages:\n" +
                                 stage_yaml + resources + extra);
  }
  // `screen validate` on a manifest must fail with exit 3 and name `field` with `problem`.
  void expect_manifest_refuses(const std::string& stage_yaml, const std::string& extra, const std::string& field,
                               const std::string& problem) const {
    const auto r = run_screen({"validate", manifest(stage_yaml, extra)});
    EXPECT_EQ(r.exit_code, 3) << r.out;
    EXPECT_TRUE(contains(r.out, field + ": " + problem)) << field << ": " << problem << "\n" << r.out;
  }
  // The CLI must fail with exit 2 and "OPTION: problem".
  static void expect_cli_refuses(const std::vector<std::string>& args, const std::string& option,
                                 const std::string& problem) {
    const auto r = run_screen(args);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_TRUE(contains(r.out, option + ": " + problem)) << option << ": " << problem << "\n" << r.out;
  }
  std::string q() const { return dir_.path("q.fa"); }
  std::string t() const { return dir_.path("t.fa"); }

  CliTempDir dir_;
};

TEST_F(OptionRules, MirandaOptionsAndKeysShareTheirRanges) {
  struct Case {
    const char* option;
    const char* key;
    const char* value;
    std::string problem;
  };
  const std::vector<Case> cases = {
      {"--score-threshold", "score_threshold", "0", rules::miranda_score_threshold(0)},
      {"--score-threshold", "score_threshold", "-5", rules::miranda_score_threshold(-5)},
      {"--scale", "scale", "-1", rules::miranda_scale(-1)},
      {"--scale", "scale", "101", rules::miranda_scale(101)},
      {"--gap-open", "gap_open", "9", rules::miranda_gap_penalty(9)},
      {"--gap-extend", "gap_extend", "-1001", rules::miranda_gap_penalty(-1001)},
      {"--energy-threshold", "energy_threshold", "2000", rules::energy_threshold(2000)},
      {"--temperature", "temperature", "101", rules::energy_temperature(101)},
  };
  for (const auto& c : cases) {
    ASSERT_FALSE(c.problem.empty()) << c.option << " " << c.value;
    expect_cli_refuses({"align", q(), t(), c.option, c.value}, c.option, c.problem);
    expect_manifest_refuses(std::string("  miranda:\n    ") + c.key + ": " + c.value + "\n", "",
                            std::string("stages.miranda.") + c.key, c.problem);
  }
  // A fractional threshold is a number on both sides (miRanda's -sc takes one).
  const auto r = run_screen({"align", q(), t(), "--score-threshold", "140.5"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  const auto v = run_screen({"validate", manifest("  miranda:\n    score_threshold: 140.5\n")});
  EXPECT_EQ(v.exit_code, 0) << v.out;
  EXPECT_TRUE(contains(v.out, "140.5")) << v.out;
  const auto e = run_screen({"validate", manifest("  miranda:\n    energy_threshold: -20\n    temperature: 37\n")});
  EXPECT_EQ(e.exit_code, 0) << e.out;
  EXPECT_TRUE(contains(e.out, "energy below -20 kcal/mol at 37 C")) << e.out;
  const auto off = run_screen({"validate", manifest("  miranda:\n    energy: false\n")});
  EXPECT_TRUE(contains(off.out, "no energy")) << off.out;
}

TEST_F(OptionRules, NussinovOptionsAndKeysShareTheirRanges) {
  expect_cli_refuses({"fold", q(), "--min-loop", "-1"}, "--min-loop", rules::nussinov_min_loop(-1));
  expect_manifest_refuses("  nussinov:\n    min_loop: -1\n", "", "stages.nussinov.min_loop",
                          rules::nussinov_min_loop(-1));
  expect_cli_refuses({"fold", q(), "--min-loop", "1001"}, "--min-loop", rules::nussinov_min_loop(1001));
  expect_cli_refuses({"fold", q(), "--max-span", "4"}, "--max-span", rules::nussinov_max_span(4, 3));
  expect_manifest_refuses("  nussinov:\n    max_span: 4\n", "", "stages.nussinov.max_span",
                          rules::nussinov_max_span(4, 3));
  expect_cli_refuses({"fold", q(), "--max-span", "-2"}, "--max-span", rules::nussinov_max_span(-2, 3));
  // Weights: one rule (common/pair_weights.hpp) for --weights and `pairs`.
  expect_cli_refuses({"fold", q(), "--weights", "CG=0.25"}, "--weights", rules::pair_weights(0.25, 1, 1));
  expect_manifest_refuses("  nussinov:\n    pairs: {CG: 0.25}\n", "", "stages.nussinov.pairs.CG",
                          rules::pair_weight(0.25));
  expect_cli_refuses({"fold", q(), "--weights", "CG=0,AU=0,GU=0"}, "--weights", rules::pair_weights(0, 0, 0));
  expect_manifest_refuses("  nussinov:\n    pairs: {CG: 0, AU: 0, GU: 0}\n", "", "stages.nussinov.pairs",
                          rules::pair_weights(0, 0, 0));
  expect_cli_refuses({"fold", q(), "--weights", "GU=2000"}, "--weights", rules::pair_weights(1, 1, 2000));
}

TEST_F(OptionRules, BpmaxOptionsAndKeysShareTheirRanges) {
  expect_cli_refuses({"interact", q(), t(), "--target-window", "-5"}, "--target-window", rules::bpmax_window(-5));
  expect_manifest_refuses("  bpmax:\n    target_window: -5\n", "", "stages.bpmax.target_window",
                          rules::bpmax_window(-5));
  expect_cli_refuses({"interact", q(), t(), "--query-window", "-1"}, "--query-window", rules::bpmax_window(-1));
  expect_cli_refuses({"interact", q(), t(), "--weights", "AU=-1"}, "--weights", rules::pair_weights(3, -1, 1));
  expect_manifest_refuses("  bpmax:\n    pairs: {AU: -1}\n", "", "stages.bpmax.pairs.AU", rules::pair_weight(-1));
}

TEST_F(OptionRules, RunAndPlanOptionsShareTheManifestsRanges) {
  const std::string m = manifest("  nussinov:\n");
  for (const char* cmd : {"run", "plan"}) {
    expect_cli_refuses({cmd, m, "--shards", "0"}, "--shards", rules::shard_count(0));
    expect_cli_refuses({cmd, m, "--shards", "-3"}, "--shards", rules::shard_count(-3));
  }
  expect_manifest_refuses("  nussinov:\n", "sharding:\n  shards: 0\n", "sharding.shards", rules::shard_count(0));
  expect_cli_refuses({"run", m, "--threads", "-1"}, "--threads", rules::cpu_threads(-1));
  expect_cli_refuses({"run", m, "--threads", "5000"}, "--threads", rules::cpu_threads(5000));
  expect_manifest_refuses("  nussinov:\n", "resources:\n  devices: cpu\n  cpu_threads: 5000\n",
                          "resources.cpu_threads", rules::cpu_threads(5000));
  for (const char* cmd : {"fold", "align", "interact"}) {
    std::vector<std::string> args = {cmd, q()};
    if (std::string(cmd) != "fold") args.push_back(t());
    args.insert(args.end(), {"--threads", "-2"});
    expect_cli_refuses(args, "--threads", rules::cpu_threads(-2));
  }
  // Nothing was written by the refused runs.
  EXPECT_FALSE(std::filesystem::exists(dir_.path("out"))) << "a refused command left an output folder";
}

TEST(OptionRuleTexts, ControlCharactersAreShownEscapedOnOneLine) {
  EXPECT_EQ(rules::quoted_for_message("a\nb\tc\x01"), "'a\\nb\\tc\\x01'");
  EXPECT_EQ(rules::quoted_for_message(std::string(50, 'x'), 5), "'xxxxx...'");
  EXPECT_FALSE(rules::text_value("part\nition").empty());
  EXPECT_FALSE(rules::text_value(std::string("a\0b", 3)).empty());
  EXPECT_FALSE(rules::text_value(std::string(5000, 'a')).empty());
  EXPECT_TRUE(rules::text_value("plain text, with spaces and 'quotes'").empty());
  EXPECT_TRUE(rules::name("svrna_vs_tx.v2-1").empty());
  EXPECT_FALSE(rules::name(std::string(101, 'a')).empty());
  EXPECT_FALSE(rules::name("..").empty());
  EXPECT_FALSE(rules::name("a b").empty());
}

}  // namespace
}  // namespace screen::testing
