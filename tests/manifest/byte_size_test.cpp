#include <gtest/gtest.h>

#include "manifest/byte_size.hpp"

namespace screen::manifest {
namespace {

TEST(ByteSize, ParsesDecimalAndBinaryUnits) {
  EXPECT_EQ(parse_byte_size("64GiB"), 64ull << 30);
  EXPECT_EQ(parse_byte_size("64 gib"), 64ull << 30);
  EXPECT_EQ(parse_byte_size("512MiB"), 512ull << 20);
  EXPECT_EQ(parse_byte_size("100GB"), 100'000'000'000ull);
  EXPECT_EQ(parse_byte_size("1.5KB"), 1500u);
  EXPECT_EQ(parse_byte_size("2TiB"), 2ull << 40);
  EXPECT_EQ(parse_byte_size("4096"), 4096u);
  EXPECT_EQ(parse_byte_size("10 B"), 10u);
}

TEST(ByteSize, RejectsWhatIsNotASize) {
  for (const char* bad : {"", "GiB", "0", "0GiB", "-1GiB", "1.2.3GB", "5 parsecs", "64 G i B", "1e3MB", "9999999TiB"})
    EXPECT_FALSE(parse_byte_size(bad).has_value()) << bad;
}

TEST(ByteSize, FormatsInBinaryUnits) {
  EXPECT_EQ(format_byte_size(64ull << 30), "64 GiB");
  EXPECT_EQ(format_byte_size(1500000000), "1.4 GiB");
  EXPECT_EQ(format_byte_size(4096), "4 KiB");
  EXPECT_EQ(format_byte_size(100), "100 B");
}

}  // namespace
}  // namespace screen::manifest
