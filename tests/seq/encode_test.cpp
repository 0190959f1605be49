#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.hpp"
#include "seq/alphabet.hpp"
#include "seq/sequence_set.hpp"

namespace screen::seq {
namespace {

TEST(Encode, LettersToCodes) {
  EXPECT_EQ(encode("ACGUT"), (std::vector<std::uint8_t>{A, C, G, U, U}));
  EXPECT_EQ(encode("acgut"), (std::vector<std::uint8_t>{A, C, G, U, U}));
  for (char c : std::string("NRYKMSWBDHVnrykmswbdhv")) EXPECT_EQ(encode(std::string(1, c))[0], N) << c;
  EXPECT_TRUE(encode("").empty());
}

TEST(Encode, XOnlyWithMaskX) {
  EXPECT_EQ(encode("AXx", true), (std::vector<std::uint8_t>{A, N, N}));
  EXPECT_THROW(encode("AXx"), InputError);
}

TEST(Encode, InvalidLetterNamesPosition) {
  for (const char* bad : {"ACJ", "AC-", "AC.", "AC1", "AC ", "ACE"}) {
    try {
      encode(bad);
      FAIL() << "accepted " << bad;
    } catch (const InputError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("position 3"), std::string::npos) << msg;
      EXPECT_NE(msg.find("invalid character"), std::string::npos) << msg;
      EXPECT_EQ(e.code(), ExitCode::input);
    }
  }
}

TEST(Encode, DecodeAndSetLetters) {
  const auto codes = encode("acgTNy");
  EXPECT_EQ(decode(codes.data(), codes.size()), "ACGUNN");
  SequenceSet set;
  SequenceRecord r1;
  r1.name = "one";
  set.add(r1, codes.data(), 3);
  SequenceRecord r2;
  r2.name = "two";
  set.add(r2, codes.data() + 2, 4);
  ASSERT_EQ(set.size(), 2u);
  EXPECT_EQ(set.record(0).offset, 0u);
  EXPECT_EQ(set.record(1).offset, 3u);
  EXPECT_EQ(set.length(1), 4u);
  EXPECT_EQ(set.total_length(), 7u);
  EXPECT_EQ(set.letters(0), "ACG");
  EXPECT_EQ(set.letters(1), "GUNN");
  EXPECT_EQ(set.codes(1)[0], G);
}

}  // namespace
}  // namespace screen::seq
