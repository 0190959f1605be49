#include <gtest/gtest.h>

#include "common/version.hpp"
#include "tests/cli/run_screen.hpp"

namespace screen::testing {
namespace {

TEST(Cli, VersionPrintsVersionAndCommit) {
  auto r = run_screen({"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find(std::string("screen ") + version_string()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("commit"), std::string::npos) << r.out;
}

TEST(Cli, NoSubcommandIsAUsageError) {
  auto r = run_screen({});
  EXPECT_EQ(r.exit_code, 2) << r.out;
}

TEST(Cli, UnknownSubcommandIsAUsageError) {
  auto r = run_screen({"frobnicate"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
}

TEST(Cli, EverySubcommandHasHelp) {
  for (const char* sub : {"run", "plan", "submit", "status", "merge", "export", "validate", "fold", "interact",
                          "align", "bench"}) {
    auto r = run_screen({sub, "--help"});
    EXPECT_EQ(r.exit_code, 0) << sub << ": " << r.out;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << sub << ": " << r.out;
  }
}

}  // namespace
}  // namespace screen::testing
