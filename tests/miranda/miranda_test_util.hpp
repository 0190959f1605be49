#pragma once
// Helpers for the miRanda tests: the repository's test data, FASTA inputs as SeqViews, codes from
// letters, and the '>' / '>>' lines of a miRanda output file.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "seq/sequence_set.hpp"
#include "stages/miranda/reference.hpp"

namespace screen::miranda::test {

// tests/data/miranda/<name> under $SCREEN_SOURCE_DIR (set by ctest).
std::string data_path(const std::string& name);
std::string read_text(const std::string& path);

// A FASTA file read through seq::read_fasta (mask_x = true), plus each record's letters as written
// (for display: miRanda prints T or U as the input had it). letters[k].size() == set.length(k).
struct Inputs {
  seq::SequenceSet set;
  std::vector<std::string> letters;
  SeqView view(std::size_t k) const {
    return SeqView{set.codes(k), set.length(k), letters[k].data()};
  }
};
Inputs load_inputs(const std::string& path);

// Codes for letters through seq::encode with mask_x (T = U; N, IUPAC and X masked).
std::vector<std::uint8_t> codes_of(const std::string& letters);

// Lines of `text` that start with '>' (hit lines and pair lines), without their newline.
std::vector<std::string> result_lines(const std::string& text);
// The part of a miRanda output from the first alignment block on (banner and settings removed).
std::string report_body(const std::string& text);

// Hits equal field for field (alignment and display lines included), and whole pair results.
::testing::AssertionResult same_hit(const Hit& e, const Hit& g);
::testing::AssertionResult same_result(const PairResult& e, const PairResult& g);
// Every pair result equal, in order (a failure names `what` and the pair).
void expect_same_results(const std::vector<PairResult>& e, const std::vector<PairResult>& g, const std::string& what);

}  // namespace screen::miranda::test
