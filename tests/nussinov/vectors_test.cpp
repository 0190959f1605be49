// The reference against the single-strand columns of the shared BPMax vectors: S_query and S_target
// are the Nussinov scores of the query and the target alone (min_loop 3, the row's weights).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "stages/nussinov/cpu.hpp"
#include "stages/nussinov/reference.hpp"
#include "stages/nussinov/traceback.hpp"
#include "tests/nussinov/test_util.hpp"

namespace screen::nussinov::testing {
namespace {

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, '\t')) out.push_back(field);
  return out;
}

TEST(NussinovVectors, ReferenceMatchesSingleStrandColumns) {
  const char* root = std::getenv("SCREEN_SOURCE_DIR");
  ASSERT_NE(root, nullptr) << "SCREEN_SOURCE_DIR is not set (ctest sets it)";
  const std::string path = std::string(root) + "/tests/data/bpmax_reference_scores.tsv";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  ASSERT_EQ(split_tabs(line), (std::vector<std::string>{"id", "query", "target", "w_CG", "w_AU", "w_GU", "S_query",
                                                        "S_target", "bpmax_full"}));
  int rows = 0, nonzero = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto f = split_tabs(line);
    ASSERT_EQ(f.size(), 9u) << line;
    Params p;
    p.min_loop = 3;
    p.weights = make_pair_weights(std::stod(f[3]), std::stod(f[4]), std::stod(f[5]), f[0]);
    for (int col : {1, 2}) {
      const auto s = codes(f[static_cast<std::size_t>(col)]);
      const int n = static_cast<int>(s.size());
      const double expect_user = std::stod(f[static_cast<std::size_t>(col) + 5]);
      const long long expect = std::llround(expect_user * p.weights.scale);
      ASSERT_DOUBLE_EQ(static_cast<double>(expect), expect_user * p.weights.scale) << line;
      const auto ref = fold_reference(s.data(), n, p, true);
      EXPECT_EQ(ref.score, expect) << f[0] << (col == 1 ? " query" : " target");
      EXPECT_EQ(score_structure(s.data(), n, p, ref.structure), ref.score) << f[0];
      EXPECT_EQ(fold_cpu(s.data(), n, p, false, 1).score, expect) << f[0];
      if (expect > 0) ++nonzero;
    }
    ++rows;
  }
  EXPECT_EQ(rows, 24);
  EXPECT_GT(nonzero, 30);
}

}  // namespace
}  // namespace screen::nussinov::testing
