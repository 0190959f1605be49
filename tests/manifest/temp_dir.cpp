#include "tests/manifest/temp_dir.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace screen::testing {

std::string TempDir::write(const std::string& relative, const std::string& text) const {
  const auto full = path() / relative;
  std::filesystem::create_directories(full.parent_path());
  std::ofstream out(full, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + full.string());
  return full.string();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace screen::testing
