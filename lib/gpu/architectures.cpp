#include "gpu/architectures.hpp"

#include <fmt/format.h>

#include <cctype>
#include <vector>

namespace screen::gpu {

std::string built_architectures() {
#ifdef SCREEN_CUDA_ARCHITECTURES
  // The build passes ',' between entries (a ';' would split the definition); CMake's own list has ';'.
  std::string list = SCREEN_CUDA_ARCHITECTURES;
  for (char& c : list)
    if (c == ',') c = ';';
  return list;
#else
  return "";
#endif
}

namespace {

struct Entry {
  int cc = 0;             // 10 major + minor
  bool machine = false;   // sm_XY machine code
  bool ptx = false;       // compute_XY PTX
  bool exact = false;     // an "a" target: that capability only
  bool family = false;    // an "f" target: its major version, that minor version and later
};

// False for entries this cannot judge (native, all, all-major, anything else).
bool parse(const std::string& text, Entry& e) {
  std::size_t k = 0;
  while (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k]))) ++k;
  if (k < 2 || k > 3) return false;
  e.cc = std::stoi(text.substr(0, k));
  std::string rest = text.substr(k);
  if (!rest.empty() && (rest[0] == 'a' || rest[0] == 'f')) {
    (rest[0] == 'a' ? e.exact : e.family) = true;
    rest = rest.substr(1);
  }
  if (rest.empty()) e.machine = e.ptx = true;
  else if (rest == "-real") e.machine = true;
  else if (rest == "-virtual") e.ptx = true;
  else return false;
  return true;
}

}  // namespace

std::string architecture_mismatch(int major, int minor, const std::string& architectures) {
  std::vector<Entry> entries;
  std::string item;
  for (std::size_t k = 0; k <= architectures.size(); ++k) {
    const char c = k < architectures.size() ? architectures[k] : ';';
    if (c != ';' && c != ',') {
      if (!std::isspace(static_cast<unsigned char>(c))) item += c;
      continue;
    }
    if (!item.empty()) {
      Entry e;
      if (!parse(item, e)) return "";
      entries.push_back(e);
    }
    item.clear();
  }
  if (entries.empty()) return "";
  const int cc = 10 * major + minor;
  for (const Entry& e : entries) {
    if (e.exact || e.family) {
      if (e.exact ? e.cc == cc : e.cc / 10 == major && e.cc % 10 <= minor) return "";
      continue;
    }
    if (e.machine && e.cc / 10 == major && e.cc % 10 <= minor) return "";
    if (e.ptx && e.cc <= cc) return "";
  }
  return fmt::format(
      "compute capability {}.{}, and this build has GPU code only for CMAKE_CUDA_ARCHITECTURES={}: rebuild with "
      "cmake -DCMAKE_CUDA_ARCHITECTURES={}{} (README, Build)",
      major, minor, architectures, major, minor);
}

}  // namespace screen::gpu
