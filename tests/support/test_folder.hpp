#pragma once
// TestFolder: a fresh folder named after the running GoogleTest (prefix-pid-suite-test-N, N counting the
// folders this process made, so that two in one test never meet), removed with everything in it when it
// goes. The module test helpers derive their TempDir from it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <filesystem>
#include <iterator>
#include <string>
#include <system_error>

namespace screen::testing_support {

class TestFolder {
 public:
  explicit TestFolder(const std::string& prefix) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    static std::atomic<unsigned> made{0};
    path_ = std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(::getpid()) + "-" +
                                                      info->test_suite_name() + "-" + info->name() + "-" +
                                                      std::to_string(made++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TestFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TestFolder(const TestFolder&) = delete;
  TestFolder& operator=(const TestFolder&) = delete;

  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }
  std::size_t entries() const {
    return static_cast<std::size_t>(
        std::distance(std::filesystem::directory_iterator(path_), std::filesystem::directory_iterator()));
  }

 private:
  std::filesystem::path path_;
};

}  // namespace screen::testing_support
