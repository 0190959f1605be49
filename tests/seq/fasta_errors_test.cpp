// Every way a FASTA input is refused: the message names the file, the line and (where there is
// one) the column, and the error carries the input exit code.
#include <gtest/gtest.h>

#include <string>

#include "common/error.hpp"
#include "seq/sequence_set.hpp"
#include "test_files.hpp"

namespace screen::seq {
namespace {

// The message of the InputError that reading `text` (written to a file named `name`) throws.
std::string error_of(const std::string& text, const FastaOptions& opt = {}, const std::string& name = "x.fa") {
  test::TempDir dir;
  const std::string path = dir.file(name);
  test::write_file(path, text);
  try {
    read_fasta(path, opt);
  } catch (const InputError& e) {
    EXPECT_EQ(e.code(), ExitCode::input);
    std::string msg = e.what();
    // Report relative to the file name so expectations stay short.
    const std::size_t at = msg.find(path);
    EXPECT_EQ(at, 0u) << "message does not start with the path: " << msg;
    if (at == 0) msg.replace(0, path.size(), name);
    return msg;
  }
  ADD_FAILURE() << "no InputError for:\n" << text;
  return {};
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(FastaErrors, InvalidLetterNamesLineColumnCharacterAndRecord) {
  const std::string msg = error_of(">r0\nACGU\n>chr1 x\nACGU\nACGUAcJ\n");
  EXPECT_EQ(msg, "x.fa:5:7: invalid character 'J' in record 'chr1' (expected A C G U T N or an IUPAC code)");
}

TEST(FastaErrors, GapsDigitsAndWhiteSpaceNeedStripInvalid) {
  struct Case {
    std::string text, where, shown;
  };
  for (const Case& c : {Case{">a\nAC-G\n", "x.fa:2:3:", "'-'"}, Case{">a\nACG.\n", "x.fa:2:4:", "'.'"},
                        Case{">a\nAC\n1ACG\n", "x.fa:3:1:", "'1'"}, Case{">a\nAC G\n", "x.fa:2:3:", "' ' (space)"},
                        Case{">a\r\nACG\t\r\n", "x.fa:2:4:", "'\\t' (tab)"},
                        Case{">a\nA\rCG\n", "x.fa:2:2:", "'\\r' (carriage return)"},
                        Case{">a\nACGU \n", "x.fa:2:5:", "' ' (space)"}}) {
    const std::string msg = error_of(c.text);
    EXPECT_TRUE(starts_with(msg, c.where + " invalid character " + c.shown + " in record 'a'")) << msg;
    EXPECT_TRUE(contains(msg, "strip_invalid")) << msg;
  }
}

TEST(FastaErrors, XNeedsMaskX) {
  const std::string msg = error_of(">a\nACX\n");
  EXPECT_TRUE(starts_with(msg, "x.fa:2:3: invalid character 'X' in record 'a'")) << msg;
  EXPECT_TRUE(contains(msg, "mask_x")) << msg;
}

TEST(FastaErrors, OtherCharacters) {
  EXPECT_TRUE(starts_with(error_of(">a\nAC>G\n"), "x.fa:2:3: invalid character '>'"));
  EXPECT_TRUE(starts_with(error_of(">a\nACE\n"), "x.fa:2:3: invalid character 'E'"));
  EXPECT_TRUE(starts_with(error_of(">a\nA*\n"), "x.fa:2:2: invalid character '*'"));
  EXPECT_TRUE(starts_with(error_of(std::string(">a\nAC\0G\n", 8)), "x.fa:2:3: invalid character byte 0x00"));
  EXPECT_TRUE(starts_with(error_of(">a\nAC\xC3\xA9\n"), "x.fa:2:3: invalid character byte 0xc3"));
  // strip_invalid drops gaps, not arbitrary letters.
  FastaOptions strip;
  strip.strip_invalid = true;
  EXPECT_TRUE(starts_with(error_of(">a\nA-C-Z\n", strip), "x.fa:2:5: invalid character 'Z'"));
}

TEST(FastaErrors, EmptyRecord) {
  EXPECT_EQ(error_of(">a\nAC\n>b desc\n>c\nG\n"), "x.fa:3: empty record 'b' (no sequence after the header)");
  EXPECT_EQ(error_of(">a\nAC\n>last\n\n\n"), "x.fa:3: empty record 'last' (no sequence after the header)");
  EXPECT_EQ(error_of(">a\nAC\n>last"), "x.fa:3: empty record 'last' (no sequence after the header)");
  EXPECT_EQ(error_of(">a\r\n\r\n>b\r\nA\r\n"), "x.fa:1: empty record 'a' (no sequence after the header)");
}

TEST(FastaErrors, DuplicateNames) {
  EXPECT_EQ(error_of(">a\nAC\n>b\nG\n>a other\nU\n"), "x.fa:5:2: duplicate record name 'a' (first at line 1)");
}

TEST(FastaErrors, HeaderWithNoName) {
  EXPECT_TRUE(starts_with(error_of(">a\nAC\n>\nG\n"), "x.fa:3:2: header with no name")) << error_of(">a\nAC\n>\nG\n");
  EXPECT_TRUE(starts_with(error_of("> spaced name\nG\n"), "x.fa:1:2: header with no name"));
  EXPECT_TRUE(starts_with(error_of(">a\nAC\n>"), "x.fa:3:2: header with no name"));
}

TEST(FastaErrors, SequenceBeforeFirstHeader) {
  EXPECT_TRUE(starts_with(error_of("ACGU\n>a\nAC\n"), "x.fa:1:1: sequence data before the first header"));
  EXPECT_TRUE(starts_with(error_of("\n\n  >a\nAC\n"), "x.fa:3:1: sequence data before the first header"));
}

TEST(FastaErrors, NoRecords) {
  EXPECT_EQ(error_of(""), "x.fa: no records: the file is empty");
  EXPECT_EQ(error_of("\n\n\n"), "x.fa:4: no records (no line starts with '>')");
}

TEST(FastaErrors, UnreadableFiles) {
  test::TempDir dir;
  const std::string missing = dir.file("missing.fa");
  try {
    read_fasta(missing);
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), missing + ": cannot open: No such file or directory");
  }
  try {
    read_fasta(dir.path());
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_TRUE(starts_with(e.what(), dir.path() + ": ")) << e.what();
    EXPECT_TRUE(contains(e.what(), "is a folder, not a regular file")) << e.what();
  }
}

TEST(FastaErrors, ParseFastaUsesTheDisplayName) {
  try {
    parse_fasta(">a\nAJ\n", "inline input");
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_TRUE(starts_with(e.what(), "inline input:2:2: invalid character 'J'")) << e.what();
  }
}

}  // namespace
}  // namespace screen::seq
