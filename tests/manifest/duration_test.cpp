#include <gtest/gtest.h>

#include "manifest/duration.hpp"

namespace screen::manifest {
namespace {

TEST(Duration, ParsesUnitsAndCombinations) {
  EXPECT_EQ(parse_duration("30s"), 30);
  EXPECT_EQ(parse_duration("45sec"), 45);
  EXPECT_EQ(parse_duration("5min"), 300);
  EXPECT_EQ(parse_duration("5m"), 300);
  EXPECT_EQ(parse_duration("2h"), 7200);
  EXPECT_EQ(parse_duration("1h30m"), 5400);
  EXPECT_EQ(parse_duration("1h 30min"), 5400);
  EXPECT_EQ(parse_duration("1d12h"), 129600);
  EXPECT_EQ(parse_duration("1h0m5s"), 3605);
}

TEST(Duration, RejectsWhatIsNotADuration) {
  for (const char* bad : {"", "300", "5", "m", "5 minutes", "5ms", "1m30h", "1h1h", "0s", "0h0m", "-5min", "1.5h",
                          "5min!", "99999999999h"})
    EXPECT_FALSE(parse_duration(bad).has_value()) << bad;
}

TEST(Duration, FormatsLargestUnitsFirst) {
  EXPECT_EQ(format_duration(300), "5min");
  EXPECT_EQ(format_duration(5400), "1h30min");
  EXPECT_EQ(format_duration(45), "45s");
  EXPECT_EQ(format_duration(90061), "1d1h1min1s");
  EXPECT_EQ(parse_duration(format_duration(90061)), 90061);
}

TEST(TimeLimit, SlurmForms) {
  EXPECT_EQ(parse_time_limit("24:00:00"), 86400);
  EXPECT_EQ(parse_time_limit("00:30:00"), 1800);
  EXPECT_EQ(parse_time_limit("72:00:00"), 259200);
  EXPECT_EQ(parse_time_limit("2-12:00:00"), 216000);
  EXPECT_EQ(parse_time_limit("0-00:00:01"), 1);
  for (const char* bad : {"", "24:00", "24", "00:00:00", "1:60:00", "1:00:60", "1-24:00:00", "1:0:00", "a-01:00:00",
                          "-01:00:00", "01:00:00:00", "1d"})
    EXPECT_FALSE(parse_time_limit(bad).has_value()) << bad;
}

}  // namespace
}  // namespace screen::manifest
