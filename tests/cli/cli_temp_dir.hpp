#pragma once
// CliTempDir: a fresh folder for the files an end-to-end CLI test writes and reads, removed with
// everything in it when the test ends.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace screen::testing {

// The bytes of a file ("" when it cannot be read).
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The lines of a text, without their line breaks.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

class CliTempDir {
 public:
  CliTempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "screen-cli-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~CliTempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  CliTempDir(const CliTempDir&) = delete;
  CliTempDir& operator=(const CliTempDir&) = delete;

  // Writes `text` to path(name) and returns that path.
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = path(name);
    std::ofstream(p) << text;
    return p;
  }
  std::string path(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace screen::testing
