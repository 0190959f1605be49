#include <gtest/gtest.h>

#include "manifest/did_you_mean.hpp"

namespace screen::manifest {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("taget_window", "target_window"), 1u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("enalbed", "enabled"), 1u);  // adjacent swap = one edit
}

TEST(ClosestMatch, SuggestsOnlyLikelyTypos) {
  const std::vector<std::string> keys = {"enabled", "query_window", "target_window", "pairs", "traceback"};
  EXPECT_EQ(closest_match("taget_window", keys), "target_window");
  EXPECT_EQ(closest_match("querry_window", keys), "query_window");
  EXPECT_EQ(closest_match("Pairs", keys), "pairs");
  EXPECT_EQ(closest_match("trace_back", keys), "traceback");
  EXPECT_FALSE(closest_match("colour", keys).has_value());
  EXPECT_FALSE(closest_match("window", keys).has_value());
  EXPECT_EQ(closest_match("tpo", {"none", "top", "all"}), "top");
  EXPECT_FALSE(closest_match("xyz", {"none", "top", "all"}).has_value());
}

}  // namespace
}  // namespace screen::manifest
