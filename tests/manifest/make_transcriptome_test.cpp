// The synthetic transcriptome generator: deterministic, lengths in range, FASTA shape, gzip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "tests/manifest/temp_dir.hpp"

namespace screen::testing {
namespace {

std::string generate(const TempDir& dir, const std::string& name, const std::string& args) {
  const std::string out = (dir.path() / name).string();
  const std::string cmd = std::string("'") + MAKE_TRANSCRIPTOME_EXE + "' " + args + " --output '" + out + "' 2>/dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return read_text(out);
}

struct Record {
  std::string header;
  std::string seq;
};

// Also checks the shape: every sequence line holds 1..60 letters of ACGT, and only the last line
// of a record may be shorter than 60.
std::vector<Record> parse(const std::string& text) {
  std::vector<Record> out;
  std::istringstream in(text);
  std::size_t last_line = 60;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] == '>') {
      out.push_back({line.substr(1), ""});
      last_line = 60;
      continue;
    }
    EXPECT_FALSE(out.empty());
    EXPECT_EQ(last_line, 60u) << "a short line inside record " << out.back().header;
    EXPECT_GE(line.size(), 1u);
    EXPECT_LE(line.size(), 60u);
    EXPECT_EQ(line.find_first_not_of("ACGT"), std::string::npos) << line;
    out.back().seq += line;
    last_line = line.size();
  }
  return out;
}

TEST(MakeTranscriptome, SameSeedSameBytesOtherSeedOtherBytes) {
  TempDir dir;
  const std::string a = generate(dir, "a.fa", "--count 40 --seed 5");
  const std::string b = generate(dir, "b.fa", "--count 40 --seed 5");
  const std::string c = generate(dir, "c.fa", "--count 40 --seed 6");
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(MakeTranscriptome, NamesLengthsAndRange) {
  TempDir dir;
  const auto records = parse(generate(dir, "t.fa", "--count 400"));
  ASSERT_EQ(records.size(), 400u);
  EXPECT_EQ(records[0].header, "synth_tx_000001 len=41");
  EXPECT_EQ(records[1].header, "synth_tx_000002 len=205012");
  std::vector<std::size_t> lengths;
  for (std::size_t i = 0; i < records.size(); ++i) {
    char expected[64];
    std::snprintf(expected, sizeof expected, "synth_tx_%06zu len=%zu", i + 1, records[i].seq.size());
    EXPECT_EQ(records[i].header, expected);
    EXPECT_GE(records[i].seq.size(), 41u);
    EXPECT_LE(records[i].seq.size(), 205012u);
    lengths.push_back(records[i].seq.size());
  }
  std::sort(lengths.begin(), lengths.end());
  const std::size_t median = lengths[lengths.size() / 2];
  EXPECT_GT(median, 2000u);  // log-normal with median 2,500: the sample median of 400 is close
  EXPECT_LT(median, 3100u);
  EXPECT_GT(lengths[lengths.size() * 9 / 10], 6000u);  // and it has a long tail (sigma 1: p90 ~ 9,000)
}

TEST(MakeTranscriptome, GzipWhenTheNameEndsInGz) {
  TempDir dir;
  const std::string gz = generate(dir, "t.fa.gz", "--count 5");
  ASSERT_GE(gz.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(gz[1]), 0x8b);
  const std::string plain = generate(dir, "t.fa", "--count 5");
  EXPECT_EQ(plain.rfind(">synth_tx_000001 len=41\n", 0), 0u);
}

}  // namespace
}  // namespace screen::testing
