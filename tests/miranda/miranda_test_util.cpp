#include "miranda_test_util.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace screen::miranda::test {

std::string data_path(const std::string& name) {
  const char* root = std::getenv("SCREEN_SOURCE_DIR");
  const std::string base = root != nullptr ? root : ".";
  return base + "/tests/data/miranda/" + name;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Inputs load_inputs(const std::string& path) {
  Inputs in;
  seq::FastaOptions options;
  options.mask_x = true;
  in.set = seq::read_fasta(path, options);
  // The letters as written: sequence lines of each record, white space removed.
  const std::string text = read_text(path);
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line[0] == '>') {
      in.letters.emplace_back();
      continue;
    }
    if (in.letters.empty()) continue;
    for (const char c : line) {
      if (c != ' ' && c != '\t' && c != '\r') in.letters.back().push_back(c);
    }
  }
  if (in.letters.size() != in.set.size()) throw std::runtime_error("record count differs: " + path);
  for (std::size_t k = 0; k < in.set.size(); ++k) {
    if (in.letters[k].size() != in.set.length(k)) throw std::runtime_error("length differs: " + path);
  }
  return in;
}

std::vector<std::uint8_t> codes_of(const std::string& letters) { return seq::encode(letters, true); }

std::vector<std::string> result_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line[0] == '>') out.push_back(line);
  }
  return out;
}

std::string report_body(const std::string& text) {
  const std::string marker = "Scaling Parameter:";
  std::size_t p = text.find(marker);
  if (p == std::string::npos) return text;
  p = text.find('\n', p);                      // end of the scaling line
  p = text.find('\n', p + 1);                  // end of the "=-=-" rule
  return p == std::string::npos ? std::string() : text.substr(p + 1);
}

}  // namespace screen::miranda::test
