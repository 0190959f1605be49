#include "stages/bpmax/pairs_reader.hpp"

#include <fmt/format.h>

#include <set>
#include <vector>

#include "common/error.hpp"
#include "seq/gzip_source.hpp"
#include "seq/letter_table.hpp"

namespace screen::bpmax {

namespace {

std::string describe(unsigned char c) {
  if (c == ' ') return "' ' (space)";
  if (c == '\t') return "'\\t' (tab)";
  if (c == '\r') return "'\\r' (carriage return)";
  if (c >= 0x21 && c < 0x7f) return fmt::format("'{}'", static_cast<char>(c));
  return fmt::format("byte 0x{:02x}", static_cast<unsigned>(c));
}

class Parser {
 public:
  explicit Parser(const std::string& file) : file_(file) {}

  void line(std::string_view text, long number) {
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (!text.empty() && text.front() == '>') {
      finish();
      open_ = true;
      header_line_ = number;
      std::size_t b = 1;
      while (b < text.size() && (text[b] == ' ' || text[b] == '\t')) ++b;
      std::size_t e = b;
      while (e < text.size() && text[e] != ' ' && text[e] != '\t') ++e;
      name_ = std::string(text.substr(b, e - b));
      description_ = std::string(text.substr(e));
      const auto first = description_.find_first_not_of(" \t");
      description_ = first == std::string::npos ? std::string() : description_.substr(first);
      if (name_.empty()) throw InputError(located(file_, number, 2, "record without a name after '>'"));
      if (!names_.insert(name_).second)
        throw InputError(located(file_, number, 2, fmt::format("duplicate record name '{}'", name_)));
      return;
    }
    if (!open_) {
      if (text.find_first_not_of(" \t") == std::string_view::npos) return;  // blank lines before the first record
      throw InputError(located(file_, number, 1, "text before the first '>' header"));
    }
    for (std::size_t k = 0; k < text.size(); ++k) {
      const auto c = static_cast<unsigned char>(text[k]);
      const long column = static_cast<long>(k) + 1;
      if (c == '&') {
        if (amp_line_ != 0)
          throw InputError(located(file_, number, column,
                                   fmt::format("record '{}' has a second '&' (the first is at line {}, column {}); a "
                                               "pair record is QUERY&TARGET",
                                               name_, amp_line_, amp_column_)));
        amp_line_ = number;
        amp_column_ = column;
        continue;
      }
      const std::uint8_t code = seq::detail::kLetterTable[c];
      if (code >= seq::detail::kNotACode)
        throw InputError(located(file_, number, column,
                                 fmt::format("invalid character {} in record '{}' (expected A C G U/T, N, IUPAC "
                                             "codes, or the one '&' between query and target)",
                                             describe(c), name_)));
      (amp_line_ != 0 ? target_ : query_).push_back(code);
    }
  }

  void finish() {
    if (!open_) return;
    if (amp_line_ == 0)
      throw InputError(located(file_, header_line_, 0,
                               fmt::format("record '{}' has no '&': a pair record is QUERY&TARGET", name_)));
    if (query_.empty())
      throw InputError(located(file_, amp_line_, amp_column_, fmt::format("record '{}' has an empty query", name_)));
    if (target_.empty())
      throw InputError(located(file_, amp_line_, amp_column_, fmt::format("record '{}' has an empty target", name_)));
    seq::SequenceRecord r;
    r.name = name_;
    r.description = description_;
    r.index_in_file = count_;
    r.header_line = static_cast<std::size_t>(header_line_);
    out_.queries.add(r, query_.data(), query_.size());
    out_.targets.add(r, target_.data(), target_.size());
    ++count_;
    open_ = false;
    query_.clear();
    target_.clear();
    amp_line_ = amp_column_ = 0;
  }

  PairSets done(long last_line) {
    finish();
    if (count_ == 0) throw InputError(located(file_, last_line > 0 ? last_line : 0, 0, "no records (no line starts with '>')"));
    return std::move(out_);
  }

 private:
  std::string file_;
  PairSets out_;
  std::set<std::string> names_;
  bool open_ = false;
  std::string name_, description_;
  long header_line_ = 0;
  long amp_line_ = 0, amp_column_ = 0;
  std::vector<std::uint8_t> query_, target_;
  std::size_t count_ = 0;
};

PairSets parse_lines(std::string_view text, const std::string& name) {
  Parser parser(name);
  long number = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    parser.line(text.substr(pos, end - pos), ++number);
    pos = end + 1;
  }
  return parser.done(number);
}

}  // namespace

PairSets parse_pairs(std::string_view text, const std::string& display_name) {
  PairSets s = parse_lines(text, display_name);
  s.queries.set_source(display_name, "");
  s.targets.set_source(display_name, "");
  return s;
}

PairSets read_pairs(const std::string& path) {
  seq::detail::FileSource source(path);
  std::string text;
  const char* data = nullptr;
  std::size_t size = 0;
  while (source.next(data, size)) text.append(data, size);
  PairSets s = parse_lines(text, path);
  const std::string sha = source.sha256_hex();
  s.queries.set_source(path, sha);
  s.targets.set_source(path, sha);
  return s;
}

}  // namespace screen::bpmax
