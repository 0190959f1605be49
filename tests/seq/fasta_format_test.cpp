// FASTA reading rules that accept input: layout, letters, options, skipped records, chunking.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <random>
#include <sstream>
#include <string>

#include "common/error.hpp"
#include "common/sha256.hpp"
#include "seq/alphabet.hpp"
#include "seq/fasta_parser.hpp"
#include "seq/sequence_set.hpp"
#include "test_files.hpp"

namespace screen::seq {
namespace {

// Sends spdlog's default logger to a string for the life of the object.
class LogCapture {
 public:
  LogCapture() : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out_);
    auto logger = std::make_shared<spdlog::logger>("capture", sink);
    logger->set_level(spdlog::level::trace);
    spdlog::set_default_logger(logger);
  }
  ~LogCapture() { spdlog::set_default_logger(previous_); }
  std::string text() const { return out_.str(); }

 private:
  std::ostringstream out_;
  std::shared_ptr<spdlog::logger> previous_;
};

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(Fasta, MultiLineRecordsAndTheirPlaces) {
  const std::string text =
      ">seq1 first record\n"
      "ACGU\n"
      "ACG\n"
      ">seq2\tsecond  one  \n"
      "GGGG\n"
      "\n"
      ">seq3\n"
      "U";  // no final newline
  const SequenceSet set = parse_fasta(text, "mem.fa");
  ASSERT_EQ(set.size(), 3u);
  EXPECT_EQ(set.record(0).name, "seq1");
  EXPECT_EQ(set.record(0).description, "first record");
  EXPECT_EQ(set.record(1).name, "seq2");
  EXPECT_EQ(set.record(1).description, "second  one");
  EXPECT_EQ(set.record(2).description, "");
  EXPECT_EQ(set.letters(0), "ACGUACG");
  EXPECT_EQ(set.letters(1), "GGGG");
  EXPECT_EQ(set.letters(2), "U");
  EXPECT_EQ(set.record(0).offset, 0u);
  EXPECT_EQ(set.record(1).offset, 7u);
  EXPECT_EQ(set.record(2).offset, 11u);
  EXPECT_EQ(set.length(0), 7u);
  EXPECT_EQ(set.record(2).length, 1u);
  EXPECT_EQ(set.total_length(), 12u);
  EXPECT_EQ(set.record(0).header_line, 1u);
  EXPECT_EQ(set.record(1).header_line, 4u);
  EXPECT_EQ(set.record(2).header_line, 7u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(set.record(i).index_in_file, i);
  EXPECT_TRUE(set.skipped().empty());
  EXPECT_EQ(set.source_path(), "mem.fa");
  EXPECT_EQ(set.sha256(), sha256_hex(text));
}

TEST(Fasta, LettersCaseTAndIupac) {
  const SequenceSet set = parse_fasta(">a\nacgtuACGTU\n>b\nNRYKMSWBDHV\nnrykmswbdhv\n", "mem.fa");
  EXPECT_EQ(set.letters(0), "ACGUUACGUU");
  EXPECT_EQ(set.letters(1), std::string(22, 'N'));
  for (std::size_t i = 0; i < set.length(1); ++i) EXPECT_EQ(set.codes(1)[i], N);
  EXPECT_EQ(set.codes(0)[3], U);  // 't'
}

TEST(Fasta, WindowsLineEndings) {
  const SequenceSet set = parse_fasta(">a desc\r\nAC\r\nGU\r\n\r\n>b\r\nTT\r\n", "mem.fa");
  ASSERT_EQ(set.size(), 2u);
  EXPECT_EQ(set.record(0).description, "desc");
  EXPECT_EQ(set.letters(0), "ACGU");
  EXPECT_EQ(set.record(1).name, "b");
  EXPECT_EQ(set.letters(1), "UU");
  EXPECT_EQ(set.record(1).header_line, 5u);
  // A final '\r' with no '\n' after it is a line ending too.
  EXPECT_EQ(parse_fasta(">a\r\nAC\r", "mem.fa").letters(0), "AC");
}

TEST(Fasta, BlankLinesAndByteOrderMark) {
  const SequenceSet set = parse_fasta("\xEF\xBB\xBF\n\n>a\nAC\n\n\n>b\nG\n\n", "mem.fa");
  ASSERT_EQ(set.size(), 2u);
  EXPECT_EQ(set.record(0).header_line, 3u);
  EXPECT_EQ(set.letters(0), "AC");
  EXPECT_EQ(set.record(1).header_line, 7u);
}

TEST(Fasta, MaskX) {
  FastaOptions opt;
  opt.mask_x = true;
  EXPECT_EQ(parse_fasta(">a\nACXxG\n", "mem.fa", opt).letters(0), "ACNNG");
}

TEST(Fasta, StripInvalid) {
  FastaOptions opt;
  opt.strip_invalid = true;
  const SequenceSet set = parse_fasta(">a\n1 ACG-U.A\t\n 60 ACG\r\n>b\n--..\nC\n", "mem.fa", opt);
  EXPECT_EQ(set.letters(0), "ACGUAACG");
  EXPECT_EQ(set.letters(1), "C");
  // Stripping never makes other characters acceptable.
  EXPECT_THROW(parse_fasta(">a\nAC-J\n", "mem.fa", opt), InputError);
}

TEST(Fasta, SkipWhitespaceDropsOnlyWhiteSpace) {
  FastaOptions opt;
  opt.skip_whitespace = true;
  const SequenceSet set = parse_fasta(">a\nAC GU\tA \n  CG\r\n", "mem.fa", opt);
  EXPECT_EQ(set.letters(0), "ACGUACG");
  // Gaps and digits are still errors, with their position.
  try {
    parse_fasta(">a\nAC G-U\n", "mem.fa", opt);
    FAIL() << "a gap was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("mem.fa:2:5: invalid character '-'", 0), 0u) << e.what();
  }
}

TEST(Fasta, LengthLimitsSkipWithReasons) {
  FastaOptions opt;
  opt.min_length = 3;
  opt.max_length = 5;
  LogCapture log;
  const SequenceSet set = parse_fasta(">short\nAC\n>ok\nACGU\n>long\nACGUAC\n>edge\nACGUA\n>edge3\nACG\n", "mem.fa", opt);
  ASSERT_EQ(set.size(), 3u);
  EXPECT_EQ(set.record(0).name, "ok");
  EXPECT_EQ(set.record(0).index_in_file, 1u);
  EXPECT_EQ(set.record(0).offset, 0u);
  EXPECT_EQ(set.record(1).name, "edge");
  EXPECT_EQ(set.record(1).index_in_file, 3u);
  EXPECT_EQ(set.record(1).offset, 4u);
  EXPECT_EQ(set.record(2).name, "edge3");
  ASSERT_EQ(set.skipped().size(), 2u);
  EXPECT_EQ(set.skipped()[0].name, "short");
  EXPECT_EQ(set.skipped()[0].index_in_file, 0u);
  EXPECT_EQ(set.skipped()[0].length, 2u);
  EXPECT_EQ(set.skipped()[0].reason, "shorter than min_length 3");
  EXPECT_EQ(set.skipped()[1].name, "long");
  EXPECT_EQ(set.skipped()[1].index_in_file, 2u);
  EXPECT_EQ(set.skipped()[1].length, 6u);
  EXPECT_EQ(set.skipped()[1].reason, "longer than max_length 5");
  EXPECT_TRUE(contains(log.text(), "2 records skipped for their length")) << log.text();
}

TEST(Fasta, SkipBadRecordsWarns) {
  FastaOptions opt;
  opt.skip_bad_records = true;
  LogCapture log;
  const SequenceSet set = parse_fasta(">good\nACGU\n>bad\nACGU\nAC-J\nAAAA\n>empty\n>good2\nGG\n>good\nCC\n", "x.fa", opt);
  ASSERT_EQ(set.size(), 2u);
  EXPECT_EQ(set.record(0).name, "good");
  EXPECT_EQ(set.record(1).name, "good2");
  EXPECT_EQ(set.record(1).index_in_file, 3u);
  EXPECT_EQ(set.record(1).offset, 4u);
  EXPECT_EQ(set.letters(1), "GG");
  ASSERT_EQ(set.skipped().size(), 3u);
  EXPECT_EQ(set.skipped()[0].name, "bad");
  EXPECT_EQ(set.skipped()[0].index_in_file, 1u);
  EXPECT_TRUE(contains(set.skipped()[0].reason, "invalid character '-' at line 5, column 3")) << set.skipped()[0].reason;
  EXPECT_EQ(set.skipped()[0].length, 12u);  // every sequence byte of the record
  EXPECT_EQ(set.skipped()[1].name, "empty");
  EXPECT_EQ(set.skipped()[1].reason, "empty record");
  EXPECT_EQ(set.skipped()[2].name, "good");
  EXPECT_EQ(set.skipped()[2].index_in_file, 4u);
  EXPECT_EQ(set.skipped()[2].reason, "duplicate name (first at line 1)");
  const std::string warnings = log.text();
  EXPECT_TRUE(contains(warnings, "x.fa: skipping record 'bad' (line 3)")) << warnings;
  EXPECT_TRUE(contains(warnings, "skipping record 'empty'")) << warnings;
  EXPECT_TRUE(contains(warnings, "skipping record 'good' (line 10)")) << warnings;
  EXPECT_TRUE(contains(warnings, "warning")) << warnings;
}

TEST(Fasta, SkippedRecordsCanLeaveTheSetEmpty) {
  FastaOptions opt;
  opt.skip_bad_records = true;
  LogCapture log;
  const SequenceSet set = parse_fasta(">a\nJ\n", "x.fa", opt);
  EXPECT_TRUE(set.empty());
  EXPECT_EQ(set.skipped().size(), 1u);
  EXPECT_TRUE(contains(log.text(), "skipping record 'a'")) << log.text();
}

// Any split of the input into chunks gives the same result as the whole (lines, CRLF and headers
// cut anywhere).
TEST(Fasta, ChunkBoundariesDoNotMatter) {
  std::mt19937_64 rng(5);
  std::string text = "\n" + test::random_fasta(rng, 30, 1, 200, 17, "\r\n", "ACGTUNacgtun");
  text += ">last  final header\r\nAC";
  const SequenceSet whole = parse_fasta(text, "mem.fa");
  for (std::size_t chunk : {1, 2, 3, 5, 7, 64, 1000}) {
    SequenceSet set;
    detail::FastaParser parser("mem.fa", FastaOptions{}, set);
    for (std::size_t i = 0; i < text.size(); i += chunk) parser.feed(text.data() + i, std::min(chunk, text.size() - i));
    parser.finish();
    ASSERT_EQ(set.size(), whole.size()) << "chunk " << chunk;
    EXPECT_EQ(set.codes(), whole.codes()) << "chunk " << chunk;
    for (std::size_t r = 0; r < set.size(); ++r) {
      EXPECT_EQ(set.record(r).name, whole.record(r).name);
      EXPECT_EQ(set.record(r).description, whole.record(r).description);
      EXPECT_EQ(set.record(r).header_line, whole.record(r).header_line);
      EXPECT_EQ(set.record(r).length, whole.record(r).length);
    }
  }
  EXPECT_EQ(whole.record(whole.size() - 1).description, "final header");
  EXPECT_EQ(whole.record(0).header_line, 2u);
}

TEST(Fasta, ChunkSplitErrorsKeepTheirColumn) {
  // A '\r' inside a line, split from what follows it, is still reported where it stands.
  const std::string text = ">a\nAC\rGU\n";
  for (std::size_t cut = 1; cut < text.size(); ++cut) {
    SequenceSet set;
    detail::FastaParser parser("mem.fa", FastaOptions{}, set);
    try {
      parser.feed(text.data(), cut);
      parser.feed(text.data() + cut, text.size() - cut);
      parser.finish();
      FAIL() << "accepted a lone carriage return, cut at " << cut;
    } catch (const InputError& e) {
      EXPECT_TRUE(contains(e.what(), "mem.fa:2:3: invalid character '\\r' (carriage return)")) << e.what();
    }
  }
}

TEST(Fasta, ReadFileMatchesParseAndHashesTheFile) {
  test::TempDir dir;
  std::mt19937_64 rng(9);
  const std::string text = test::random_fasta(rng, 1500, 500, 3000, 60);  // several MiB: many read chunks
  ASSERT_GT(text.size(), 2u << 20);
  const std::string path = dir.file("big.fa");
  test::write_file(path, text);
  const SequenceSet from_file = read_fasta(path);
  const SequenceSet from_text = parse_fasta(text, path);
  ASSERT_EQ(from_file.size(), 1500u);
  EXPECT_EQ(from_file.codes(), from_text.codes());
  EXPECT_EQ(from_file.record(1499).header_line, from_text.record(1499).header_line);
  EXPECT_EQ(from_file.source_path(), path);
  EXPECT_EQ(from_file.sha256(), sha256_file(path));
  EXPECT_EQ(from_file.sha256(), sha256_hex(text));
}

}  // namespace
}  // namespace screen::seq
