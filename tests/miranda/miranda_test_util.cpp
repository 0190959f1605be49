#include "miranda_test_util.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace screen::miranda::test {

std::string data_path(const std::string& name) {
  const char* root = std::getenv("SCREEN_SOURCE_DIR");
  const std::string base = root != nullptr ? root : ".";
  return base + "/tests/data/miranda/" + name;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Inputs load_inputs(const std::string& path) {
  Inputs in;
  seq::FastaOptions options;
  options.mask_x = true;
  in.set = seq::read_fasta(path, options);
  // The letters as written: sequence lines of each record, white space removed.
  const std::string text = read_text(path);
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line[0] == '>') {
      in.letters.emplace_back();
      continue;
    }
    if (in.letters.empty()) continue;
    for (const char c : line) {
      if (c != ' ' && c != '\t' && c != '\r') in.letters.back().push_back(c);
    }
  }
  if (in.letters.size() != in.set.size()) throw std::runtime_error("record count differs: " + path);
  for (std::size_t k = 0; k < in.set.size(); ++k) {
    if (in.letters[k].size() != in.set.length(k)) throw std::runtime_error("length differs: " + path);
  }
  return in;
}

std::vector<std::uint8_t> codes_of(const std::string& letters) { return seq::encode(letters, true); }

std::vector<std::string> result_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line[0] == '>') out.push_back(line);
  }
  return out;
}

std::string report_body(const std::string& text) {
  const std::string marker = "Scaling Parameter:";
  std::size_t p = text.find(marker);
  if (p == std::string::npos) return text;
  p = text.find('\n', p);                      // end of the scaling line
  p = text.find('\n', p + 1);                  // end of the "=-=-" rule
  return p == std::string::npos ? std::string() : text.substr(p + 1);
}

::testing::AssertionResult same_hit(const Hit& e, const Hit& g) {
  auto fail = [&](const char* what) {
    return ::testing::AssertionFailure() << what << " differs; expected hit at " << e.rstart << ".." << e.rend
                                         << " score " << e.score << ", got " << g.rstart << ".." << g.rend
                                         << " score " << g.score << "\n  " << e.query_line << "\n  " << g.query_line;
  };
  if (e.query_index != g.query_index || e.target_index != g.target_index) return fail("pair");
  if (e.score != g.score) return fail("score");
  if (e.qstart != g.qstart || e.qend != g.qend) return fail("query interval");
  if (e.rstart != g.rstart || e.rend != g.rend) return fail("target interval");
  if (e.align_len != g.align_len) return fail("length");
  if (e.identity != g.identity || e.similarity != g.similarity) return fail("identity/similarity");
  if (e.query_line != g.query_line || e.match_line != g.match_line || e.target_line != g.target_line)
    return fail("display lines");
  if (e.has_energy != g.has_energy || e.energy != g.energy) return fail("energy");
  const Alignment &a = e.alignment, &b = g.alignment;
  if (a.score != b.score || a.qs != b.qs || a.qe != b.qe || a.rs != b.rs || a.re != b.re || a.ops != b.ops)
    return fail("alignment");
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult same_result(const PairResult& e, const PairResult& g) {
  if (e.truncated != g.truncated) return ::testing::AssertionFailure() << "truncated differs";
  if (e.query_index != g.query_index || e.target_index != g.target_index)
    return ::testing::AssertionFailure() << "pair indices differ";
  if (e.hits.size() != g.hits.size())
    return ::testing::AssertionFailure() << "hit count " << g.hits.size() << ", expected " << e.hits.size();
  for (std::size_t k = 0; k < e.hits.size(); ++k) {
    auto r = same_hit(e.hits[k], g.hits[k]);
    if (!r) return r << " (hit " << k << ")";
  }
  return ::testing::AssertionSuccess();
}

void expect_same_results(const std::vector<PairResult>& e, const std::vector<PairResult>& g, const std::string& what) {
  ASSERT_EQ(e.size(), g.size()) << what;
  for (std::size_t k = 0; k < e.size(); ++k) ASSERT_TRUE(same_result(e[k], g[k])) << what << " pair " << k;
}

}  // namespace screen::miranda::test
