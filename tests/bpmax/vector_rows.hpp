#pragma once
// The public vectors of the original BPMax program (its scores for short query-target pairs, kept in
// tests/data/bpmax_reference_scores.tsv), read for the CPU and the GPU tests.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace screen::bpmax::test {

struct Row {
  std::string id, query, target;
  double cg = 0, au = 0, gu = 0;
  std::string s_query, s_target, full;  // as printed by the original ("45.000000")
};

inline std::vector<Row> read_rows() {
  const char* root = std::getenv("SCREEN_SOURCE_DIR");
  const std::string path = std::string(root ? root : ".") + "/tests/data/bpmax_reference_scores.tsv";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::vector<Row> rows;
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("id\tquery\ttarget\tw_CG\tw_AU\tw_GU\tS_query\tS_target\tbpmax_full", 0), 0u) << line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::stringstream ss(line);
    Row r;
    std::string cg, au, gu;
    std::getline(ss, r.id, '\t');
    std::getline(ss, r.query, '\t');
    std::getline(ss, r.target, '\t');
    std::getline(ss, cg, '\t');
    std::getline(ss, au, '\t');
    std::getline(ss, gu, '\t');
    std::getline(ss, r.s_query, '\t');
    std::getline(ss, r.s_target, '\t');
    std::getline(ss, r.full, '\t');
    r.cg = std::stod(cg);
    r.au = std::stod(au);
    r.gu = std::stod(gu);
    rows.push_back(r);
  }
  return rows;
}

// "20.500000" in units of 1/scale; the value must be exact in those units.
inline long long units(const std::string& printed, int scale) {
  const double v = std::stod(printed) * scale;
  const long long r = std::llround(v);
  EXPECT_LT(std::fabs(v - static_cast<double>(r)), 1e-6) << printed;
  return r;
}

}  // namespace screen::bpmax::test
