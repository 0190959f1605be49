#include "stages/miranda/display_letters.hpp"

#include "seq/gzip_source.hpp"

namespace screen::miranda {

std::vector<std::string> read_display_letters(const std::string& path, const seq::SequenceSet& set) {
  std::vector<std::string> out;
  out.reserve(set.size());
  seq::detail::FileSource source(path);
  bool line_start = true, header = false;
  const char* data = nullptr;
  std::size_t size = 0;
  while (source.next(data, size)) {
    for (std::size_t k = 0; k < size; ++k) {
      const char c = data[k];
      if (c == '\n') {
        line_start = true;
        header = false;
        continue;
      }
      if (line_start && c == '>') {
        header = true;
        if (out.size() == set.size()) return {};
        out.emplace_back();
        out.back().reserve(set.length(out.size() - 1));
      }
      line_start = false;
      if (header || out.empty()) continue;
      if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') continue;
      out.back().push_back(c);
    }
  }
  if (out.size() != set.size()) return {};
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (out[k].size() != set.length(k)) return {};
  }
  return out;
}

}  // namespace screen::miranda
