#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.hpp"
#include "common/output_file.hpp"
#include "common/progress.hpp"

namespace screen {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir() {
  fs::path d = fs::temp_directory_path() / ("screen-output-test-" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(OutputFile, NothingUnderTheFinalNameUntilCommit) {
  const fs::path dir = temp_dir();
  const fs::path target = dir / "out.tsv";
  {
    OutputFile out(target.string());
    out.write("a\tb\n");
    EXPECT_FALSE(fs::exists(target));
    out.commit();
  }
  EXPECT_EQ(slurp(target), "a\tb\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);  // no temporary left
  fs::remove_all(dir);
}

TEST(OutputFile, AbandonedOutputLeavesTheOldFileAndNoTemporary) {
  const fs::path dir = temp_dir();
  const fs::path target = dir / "out.tsv";
  std::ofstream(target) << "previous result\n";
  {
    OutputFile out(target.string());
    out.write("partial");
    // destroyed without commit(), as when a command fails halfway
  }
  EXPECT_EQ(slurp(target), "previous result\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  fs::remove_all(dir);
}

TEST(OutputFile, UnwritableFolderIsAResourceErrorNamingThePath) {
  try {
    OutputFile out("/nonexistent-folder-for-screen/out.tsv");
    FAIL() << "opening succeeded";
  } catch (const ResourceError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-folder-for-screen/out.tsv"), std::string::npos) << e.what();
  }
}

TEST(Progress, HumanDurations) {
  EXPECT_EQ(human_duration(3.4), "3.4s");
  EXPECT_EQ(human_duration(42), "42s");
  EXPECT_EQ(human_duration(187), "3m07s");
  EXPECT_EQ(human_duration(3720), "1h02m");
  EXPECT_EQ(human_duration(-1), "?");
}

}  // namespace
}  // namespace screen
