// gzip input: detected by content (not name), multi-member, chunked, hashed as stored, and refused
// with a clear message when corrupt or truncated.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "common/error.hpp"
#include "common/sha256.hpp"
#include "seq/sequence_set.hpp"
#include "test_files.hpp"

namespace screen::seq {
namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

const char* kText = ">mir-1 first\nUGGAAUGUAAAGAAGUAUGUAU\n>mir-2\nacgtNNry\nAC\n";

void expect_small_set(const SequenceSet& set) {
  ASSERT_EQ(set.size(), 2u);
  EXPECT_EQ(set.record(0).name, "mir-1");
  EXPECT_EQ(set.record(0).description, "first");
  EXPECT_EQ(set.letters(0), "UGGAAUGUAAAGAAGUAUGUAU");
  EXPECT_EQ(set.letters(1), "ACGUNNNNAC");
  EXPECT_EQ(set.record(1).header_line, 3u);
}

TEST(FastaGzip, GzipFileWithGzName) {
  test::TempDir dir;
  const std::string path = dir.file("mirs.fa.gz");
  test::write_gzip(path, kText);
  const std::string stored = test::read_file(path);
  ASSERT_EQ(static_cast<unsigned char>(stored[0]), 0x1f);
  const SequenceSet set = read_fasta(path);
  expect_small_set(set);
  // The hash is of the compressed bytes as stored, not of the FASTA text.
  EXPECT_EQ(set.sha256(), sha256_hex(stored));
  EXPECT_EQ(set.sha256(), sha256_file(path));
  EXPECT_NE(set.sha256(), sha256_hex(kText));
}

TEST(FastaGzip, DetectedByContentNotName) {
  test::TempDir dir;
  const std::string gz_named_fa = dir.file("looks_plain.fa");
  test::write_gzip(gz_named_fa, kText);
  expect_small_set(read_fasta(gz_named_fa));
  EXPECT_EQ(read_fasta(gz_named_fa).sha256(), sha256_file(gz_named_fa));

  const std::string plain_named_gz = dir.file("looks_compressed.fa.gz");
  test::write_file(plain_named_gz, kText);
  const SequenceSet plain = read_fasta(plain_named_gz);
  expect_small_set(plain);
  EXPECT_EQ(plain.sha256(), sha256_hex(kText));
}

TEST(FastaGzip, ConcatenatedMembers) {
  test::TempDir dir;
  const std::string path = dir.file("multi.fa.gz");
  // The member boundary falls inside a sequence line of the second record, and an empty member sits between.
  const std::string text = kText;
  const std::size_t cut = text.find("acgt") + 2;
  const std::string bytes = test::gzip_bytes(text.substr(0, cut)) + test::gzip_bytes("") + test::gzip_bytes(text.substr(cut));
  test::write_file(path, bytes);
  const SequenceSet set = read_fasta(path);
  expect_small_set(set);
  EXPECT_EQ(set.sha256(), sha256_hex(bytes));
}

TEST(FastaGzip, LargeMultiMemberFileMatchesPlain) {
  test::TempDir dir;
  std::mt19937_64 rng(3);
  const std::string part1 = test::random_fasta(rng, 1200, 1000, 4000, 60, "\n", "ACGTN");
  std::string part2 = test::random_fasta(rng, 900, 1000, 4000, 70, "\r\n", "acgu");
  for (std::size_t p = 0; (p = part2.find(">r", p)) != std::string::npos; p += 2) part2.replace(p, 2, ">s");
  const std::string bytes = test::gzip_bytes(part1, 1) + test::gzip_bytes(part2, 6);
  ASSERT_GT(bytes.size(), 1u << 20) << "the compressed file should span more than one read chunk";
  const std::string path = dir.file("large.fa.gz");
  test::write_file(path, bytes);
  const SequenceSet gz = read_fasta(path);
  const SequenceSet plain = parse_fasta(part1 + part2, "plain");
  ASSERT_EQ(gz.size(), 2100u);
  EXPECT_EQ(gz.codes(), plain.codes());
  EXPECT_EQ(gz.record(2099).name, "s899");
  EXPECT_EQ(gz.record(2099).header_line, plain.record(2099).header_line);
  EXPECT_EQ(gz.sha256(), sha256_hex(bytes));
}

TEST(FastaGzip, ErrorsNameTheLineOfTheDecompressedText) {
  test::TempDir dir;
  const std::string path = dir.file("bad.fa.gz");
  test::write_gzip(path, ">a\nACGU\nACJ\n");
  try {
    read_fasta(path);
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              path + ":3:3: invalid character 'J' in record 'a' (expected A C G U T N or an IUPAC code)");
  }
}

std::string gzip_error(const std::string& bytes) {
  test::TempDir dir;
  const std::string path = dir.file("broken.fa.gz");
  test::write_file(path, bytes);
  try {
    read_fasta(path);
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << msg;
    return msg;
  }
  ADD_FAILURE() << "corrupt gzip accepted";
  return {};
}

TEST(FastaGzip, TruncatedCorruptAndTrailingData) {
  std::mt19937_64 rng(1);
  const std::string text = test::random_fasta(rng, 50, 100, 400);
  const std::string good = test::gzip_bytes(text);

  EXPECT_TRUE(contains(gzip_error(good.substr(0, good.size() / 2)), "truncated gzip data")) << gzip_error(good.substr(0, good.size() / 2));
  EXPECT_TRUE(contains(gzip_error(good.substr(0, good.size() - 4)), "truncated gzip data"));

  std::string flipped = good;
  for (std::size_t i = flipped.size() / 2; i < flipped.size() / 2 + 16; ++i) flipped[i] = static_cast<char>(~flipped[i]);
  EXPECT_TRUE(contains(gzip_error(flipped), "invalid gzip data")) << gzip_error(flipped);

  std::string bad_crc = good;
  bad_crc[bad_crc.size() - 6] = static_cast<char>(bad_crc[bad_crc.size() - 6] ^ 1);  // inside the CRC-32
  EXPECT_TRUE(contains(gzip_error(bad_crc), "incorrect data check")) << gzip_error(bad_crc);

  EXPECT_TRUE(contains(gzip_error(good + "trailing junk"), "invalid gzip data")) << gzip_error(good + "trailing junk");
}

TEST(FastaGzip, EmptyContent) {
  test::TempDir dir;
  const std::string path = dir.file("empty.fa.gz");
  test::write_gzip(path, "");
  try {
    read_fasta(path);
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": no records: the file is empty");
  }
}

}  // namespace
}  // namespace screen::seq
