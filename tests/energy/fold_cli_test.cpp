// `screen fold --model turner` end to end (the built executable): the random-fold vectors whose
// letters the FASTA reader keeps as written (upper-case A, C, G, U), at 30 and 37 C: the same
// energies, structures that re-evaluate to them; and the option errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "stages/energy/cuda.hpp"
#include "stages/energy/params.hpp"
#include "stages/energy/reference.hpp"
#include "energy_vectors.hpp"
#include "tests/cli/cli_temp_dir.hpp"
#include "tests/cli/run_screen.hpp"

namespace en = screen::energy;
using screen::testing::CliTempDir;
using screen::testing::run_screen;

namespace {

struct Row {
  std::string sequence;
  int energy;
};

// The vectors whose letters are all upper-case A, C, G, U.
std::vector<Row> plain_vectors(const std::string& name) {
  std::vector<Row> out;
  for (const auto& v : screen::energy::testing::read_vectors(name))
    if (!v.sequence.empty() && v.sequence.find_first_not_of("ACGU") == std::string::npos)
      out.push_back({v.sequence, v.energy});
  return out;
}

}  // namespace

// On the CPU, and on the GPU where one is usable (the GPU machine runs this test too).
class FoldTurnerDevice : public ::testing::TestWithParam<const char*> {};

TEST_P(FoldTurnerDevice, RandomFoldVectorsThroughTheCommand) {
  const std::string device = GetParam();
  if (device == "gpu" && !en::gpu_available()) GTEST_SKIP() << "no usable GPU here";
  for (const auto& [file, celsius] : {std::pair<const char*, const char*>{"random_folds_30C.tsv", "30"},
                                      std::pair<const char*, const char*>{"random_folds_37C.tsv", "37"}}) {
    const auto rows = plain_vectors(file);
    ASSERT_GT(rows.size(), 500u) << file;
    CliTempDir dir;
    std::string fasta;
    for (std::size_t k = 0; k < rows.size(); ++k) fasta += ">r" + std::to_string(k) + "\n" + rows[k].sequence + "\n";
    const std::string in = dir.write("in.fa", fasta), out = dir.path("out.tsv");
    const auto r = run_screen({"-q", "fold", in, "--model", "turner", "--temperature", celsius, "--threads", "2", "--device",
                               device, "--out", out});
    ASSERT_EQ(r.exit_code, 0) << r.out;
    std::ifstream got(out);
    std::string line;
    std::getline(got, line);
    EXPECT_EQ(line, "name\tlength\tenergy\tstructure");
    const en::Model& m = en::model_at(std::stod(celsius));
    std::size_t k = 0;
    int bad = 0;
    while (std::getline(got, line)) {
      std::istringstream f(line);
      std::string name, length, energy, structure;
      std::getline(f, name, '\t');
      std::getline(f, length, '\t');
      std::getline(f, energy, '\t');
      std::getline(f, structure, '\t');
      ASSERT_LT(k, rows.size());
      EXPECT_EQ(name, "r" + std::to_string(k));
      const int e = static_cast<int>(std::lround(std::stod(energy) * 100.0));
      if ((e != rows[k].energy || en::evaluate_structure(rows[k].sequence, structure, m) != e) && ++bad <= 5)
        ADD_FAILURE() << file << " " << rows[k].sequence << ": vector " << rows[k].energy << ", got " << line;
      ++k;
    }
    EXPECT_EQ(k, rows.size());
    EXPECT_EQ(bad, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, FoldTurnerDevice, ::testing::Values("cpu", "gpu"));

TEST(FoldTurnerCli, OptionErrors) {
  CliTempDir dir;
  const std::string in = dir.write("in.fa", ">a\nGGGGAAACCCC\n");
  EXPECT_EQ(run_screen({"fold", in, "--model", "vienna"}).exit_code, 2);
  EXPECT_EQ(run_screen({"fold", in, "--model", "turner", "--weights", "CG=3"}).exit_code, 2);
  EXPECT_EQ(run_screen({"fold", in, "--model", "turner", "--temperature", "200"}).exit_code, 2);
  if (!en::gpu_available()) {
    EXPECT_EQ(run_screen({"fold", in, "--model", "turner", "--device", "gpu"}).exit_code, 6);  // no GPU: a resource error
  }
  const std::string big = dir.write("big.fa", ">long\n" + std::string(4001, 'A') + "\n");
  const auto r = run_screen({"fold", big, "--model", "turner"});
  EXPECT_EQ(r.exit_code, 4) << r.out;
  EXPECT_NE(r.out.find("'long' has 4001 nt"), std::string::npos) << r.out;
  const auto ok = run_screen({"-q", "fold", in, "--model", "turner", "--no-traceback"});
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
  EXPECT_NE(ok.out.find("a\t11\t"), std::string::npos) << ok.out;
}
