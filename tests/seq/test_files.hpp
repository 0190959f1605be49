#pragma once
// Helpers for the sequence tests: a folder per test (tests/support/test_folder.hpp), files written from strings (plain or
// gzip through zlib), and random FASTA text.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tests/support/test_folder.hpp"

namespace screen::seq::test {

class TempDir : public testing_support::TestFolder {
 public:
  TempDir() : TestFolder("screen-seq"), path_(TestFolder::path().string()) {}
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void write_file(const std::string& path, const std::string& bytes);
std::string read_file(const std::string& path);
// One gzip member holding `content`, written with zlib's gzopen/gzwrite.
void write_gzip(const std::string& path, const std::string& content, int level = 6);
// The bytes of one gzip member holding `content`.
std::string gzip_bytes(const std::string& content, int level = 6);

// Random FASTA: `records` records named r0, r1, ... of min_len..max_len letters from `alphabet`,
// wrapped at `width`, with `eol` line endings.
std::string random_fasta(std::mt19937_64& rng, int records, int min_len, int max_len, int width = 60,
                         const std::string& eol = "\n", const std::string& alphabet = "ACGT");

}  // namespace screen::seq::test
