// miRanda's duplex energies through `screen run` and `screen export` (the built `screen`): a job of
// the miRanda stage alone reproduces the '>' and '>>' lines of miRanda 3.3a's default run, of its
// -noenergy run (energy: false) and of -en -20 (energy_threshold: -20), over several shards.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine_test_util.hpp"

namespace screen::engine::testing {
namespace {

std::string source(const std::string& rel) {
  const char* root = std::getenv("SCREEN_SOURCE_DIR");
  return std::string(root ? root : ".") + "/" + rel;
}

// The '>' and '>>' lines of a text.
std::vector<std::string> result_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] == '>') out.push_back(line);
  return out;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct EnergyCase {
  const char* queries;
  const char* targets;
  const char* expected;
  const char* extra;  // stages.miranda keys beyond score_threshold
};

void PrintTo(const EnergyCase& c, std::ostream* os) { *os << c.expected; }

class MirandaEnergyRun : public ::testing::TestWithParam<EnergyCase> {};

TEST_P(MirandaEnergyRun, ExportEqualsMiranda) {
  const EnergyCase c = GetParam();
  TempDir dir;
  const std::string yaml = std::string("version: 1\njob:\n  name: energies\n  output: out\n") +
                           "queries:\n  - name: q\n    fasta: " + source(c.queries) + "\n" +
                           "targets:\n  - name: t\n    fasta: " + source(c.targets) + "\n" +
                           "stages:\n  miranda:\n    score_threshold: 140\n" + c.extra +
                           "resources:\n  devices: cpu\n  cpu_threads: 2\nsharding:\n  shards: 3\n";
  spit(dir.file("job.yaml"), yaml);
  const std::string exe = SCREEN_EXE;
  const CommandResult run = run_shell(exe + " -q run " + dir.file("job.yaml") + " 2>&1");
  ASSERT_EQ(run.code, 0) << run.out;
  const CommandResult out = run_shell(exe + " export " + dir.file("out") + " --stage miranda --format miranda 2>/dev/null");
  ASSERT_EQ(out.code, 0);
  const std::vector<std::string> want = result_lines(read_all(source(std::string("tests/data/miranda/") + c.expected)));
  ASSERT_GT(want.size(), 2u);
  EXPECT_EQ(result_lines(out.out), want);
}

INSTANTIATE_TEST_SUITE_P(
    Miranda33a, MirandaEnergyRun,
    ::testing::Values(
        EnergyCase{"tests/data/miranda/public_queries.fa", "tests/data/miranda/public_targets.fa", "public_energy.out", ""},
        EnergyCase{"tests/data/miranda/public_queries.fa", "tests/data/miranda/public_targets.fa", "public_noenergy.out",
                   "    energy: false\n"},
        EnergyCase{"tests/data/miranda/hsa200.fa", "data/sarscov2_NC_045512.2.fa", "hsa200_en20.out",
                   "    energy_threshold: -20\n"}),
    [](const ::testing::TestParamInfo<EnergyCase>& p) {
      const std::string e = p.param.expected;
      return e.substr(0, e.find('.'));
    });

}  // namespace
}  // namespace screen::engine::testing
