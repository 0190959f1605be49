#pragma once
// A fresh folder for one test (tests/support/test_folder.hpp), with a helper that writes files into it.
#include <filesystem>
#include <string>

#include "tests/support/test_folder.hpp"

namespace screen::testing {

class TempDir : public testing_support::TestFolder {
 public:
  TempDir() : TestFolder("screen-manifest") {}
  // Writes `text` to path()/relative (creating folders) and returns the full path.
  std::string write(const std::string& relative, const std::string& text) const;
};

std::string read_text(const std::string& path);

}  // namespace screen::testing
