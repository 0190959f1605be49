#include "seq/fasta_parser.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstring>

#include "common/error.hpp"
#include "seq/letter_table.hpp"

namespace screen::seq::detail {
namespace {

constexpr std::size_t kMaxWarnings = 20;  // per file; then one summary line

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string describe_byte(unsigned char c) {
  switch (c) {
    case ' ': return "' ' (space)";
    case '\t': return "'\\t' (tab)";
    case '\r': return "'\\r' (carriage return)";
    case '\v': return "'\\v' (vertical tab)";
    case '\f': return "'\\f' (form feed)";
    default: break;
  }
  if (c >= 0x21 && c < 0x7f) return fmt::format("'{}'", static_cast<char>(c));
  return fmt::format("byte 0x{:02x}", static_cast<unsigned>(c));
}

// Looks up n bytes in kLetterTable, writing the values to out; true when all of them are codes.
// Eight bytes per step through 64-bit words (this beats what the compilers make of the plain loop).
bool translate(const char* p, std::size_t n, std::uint8_t* out) {
  std::uint64_t seen = 0;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t in = 0;
    std::memcpy(&in, p + i, 8);
    std::uint64_t codes = 0;
    for (int k = 0; k < 8; ++k) codes |= std::uint64_t(kLetterTable[(in >> (8 * k)) & 0xffu]) << (8 * k);
    std::memcpy(out + i, &codes, 8);
    seen |= codes;
  }
  for (; i < n; ++i) {
    out[i] = kLetterTable[static_cast<unsigned char>(p[i])];
    seen |= out[i];
  }
  constexpr std::uint64_t kNotCodeBits = 0x0101010101010101ull * static_cast<std::uint8_t>(~(kNotACode - 1));
  return (seen & kNotCodeBits) == 0;
}

}  // namespace

FastaParser::FastaParser(std::string display_name, const FastaOptions& options, SequenceSet& out)
    : file_(std::move(display_name)), options_(options), out_(out) {}

void FastaParser::feed(const char* p, std::size_t size) {
  const char* end = p + size;
  if (at_input_start_ && size > 0) {
    at_input_start_ = false;
    if (size >= 3 && std::memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;  // UTF-8 byte order mark
  }
  while (p < end) {
    if (mode_ == Mode::line_start) {
      if (*p == '>') {
        mode_ = Mode::header;
        header_.clear();
        ++p;
        column_ = 1;
        continue;
      }
      if (*p == '\n') {  // blank line
        ++p;
        ++line_;
        continue;
      }
      mode_ = Mode::sequence;
    } else if (mode_ == Mode::sequence && pending_cr_) {
      pending_cr_ = false;
      if (*p != '\n') lone_cr(pending_cr_column_);  // the '\r' that ended the last chunk was inside the line
    }
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    const char* seg_end = nl ? nl : end;
    if (mode_ == Mode::header)
      header_.append(p, seg_end);
    else
      sequence_segment(p, seg_end, nl != nullptr);
    column_ += static_cast<std::size_t>(seg_end - p);
    if (!nl) break;
    if (mode_ == Mode::header) end_header();
    mode_ = Mode::line_start;
    ++line_;
    column_ = 0;
    p = nl + 1;
  }
}

void FastaParser::sequence_segment(const char* p, const char* end, bool ends_line) {
  if (end > p && end[-1] == '\r') {  // a trailing '\r' (CRLF) is not part of the line
    --end;
    if (!ends_line) {
      pending_cr_ = true;
      pending_cr_column_ = column_ + static_cast<std::size_t>(end - p) + 1;
    }
  }
  const std::size_t n = static_cast<std::size_t>(end - p);
  if (n == 0) return;
  if (!in_record_)
    throw InputError(located(file_, static_cast<long>(line_), static_cast<long>(column_ + 1),
                             "sequence data before the first header (a FASTA record starts with a '>' line)"));
  if (!bad_reason_.empty()) {  // already skipped: only count its length
    bad_length_ += n;
    return;
  }
  const std::size_t before = out_.tail_size();
  std::uint8_t* out = out_.extend_tail(n);
  if (translate(p, n, out)) return;
  // Something other than a code: go again byte by byte.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto byte = static_cast<unsigned char>(p[i]);
    std::uint8_t code = kLetterTable[byte];
    if (code >= kNotACode && !special_byte(byte, code, column_ + 1 + i, code)) {
      if (!bad_reason_.empty()) {
        bad_length_ = before + kept + (n - i);
        out_.drop_tail();
        return;
      }
      continue;
    }
    out[kept++] = code;
  }
  out_.truncate_tail(before + kept);
}

bool FastaParser::special_byte(unsigned char byte, std::uint8_t cls, std::size_t column, std::uint8_t& code_out) {
  if (cls == kMaskX && options_.mask_x) {
    code_out = N;
    return true;
  }
  if (cls == kStrippable && options_.strip_invalid) return false;
  if (cls == kSpace && (options_.skip_whitespace || options_.strip_invalid)) return false;
  std::string hint;
  if (cls == kSpace)
    hint = "white space inside a sequence line is accepted only with skip_whitespace or strip_invalid";
  else if (cls == kStrippable)
    hint = "gaps, digits and white space inside a sequence line are accepted only with strip_invalid";
  else if (cls == kMaskX)
    hint = "X is read as N only with mask_x";
  else
    hint = "expected A C G U T N or an IUPAC code";
  if (options_.skip_bad_records) {
    bad_reason_ = fmt::format("invalid character {} at line {}, column {} ({})", describe_byte(byte), line_, column, hint);
    return false;
  }
  throw InputError(located(file_, static_cast<long>(line_), static_cast<long>(column),
                           fmt::format("invalid character {} in record '{}' ({})", describe_byte(byte), record_.name, hint)));
}

void FastaParser::lone_cr(std::size_t column) {
  if (!in_record_)
    throw InputError(located(file_, static_cast<long>(line_), static_cast<long>(column),
                             "sequence data before the first header (a FASTA record starts with a '>' line)"));
  if (!bad_reason_.empty()) {
    ++bad_length_;
    return;
  }
  std::uint8_t unused = 0;
  special_byte('\r', kStrippable, column, unused);  // '\r' is dropped, marks the record bad, or throws
  if (!bad_reason_.empty()) {
    bad_length_ = out_.tail_size() + 1;
    out_.drop_tail();
  }
}

void FastaParser::end_header() {
  if (!header_.empty() && header_.back() == '\r') header_.pop_back();
  close_record();
  open_record(std::move(header_));
  header_.clear();
}

void FastaParser::open_record(std::string text) {
  std::size_t name_end = 0;
  while (name_end < text.size() && !is_space(text[name_end])) ++name_end;
  if (name_end == 0)
    throw InputError(located(file_, static_cast<long>(line_), 2,
                             "header with no name (the record name must follow '>' directly)"));
  record_ = SequenceRecord{};
  record_.name = text.substr(0, name_end);
  std::size_t d0 = name_end, d1 = text.size();
  while (d0 < d1 && is_space(text[d0])) ++d0;
  while (d1 > d0 && is_space(text[d1 - 1])) --d1;
  record_.description = text.substr(d0, d1 - d0);
  record_.index_in_file = headers_seen_++;
  record_.header_line = line_;
  in_record_ = true;
  bad_reason_.clear();
  bad_length_ = 0;

  const auto [it, fresh] = first_line_of_name_.emplace(record_.name, line_);
  if (!fresh) {
    const std::string what = fmt::format("duplicate record name '{}' (first at line {})", record_.name, it->second);
    if (!options_.skip_bad_records) throw InputError(located(file_, static_cast<long>(line_), 2, what));
    bad_reason_ = fmt::format("duplicate name (first at line {})", it->second);
  }
}

void FastaParser::skip_record(std::string reason, bool warn) {
  if (warn) {
    if (warnings_ < kMaxWarnings)
      spdlog::warn("{}: skipping record '{}' (line {}): {}", file_, record_.name, record_.header_line, reason);
    ++warnings_;
  } else {
    spdlog::debug("{}: skipping record '{}' (line {}): {}", file_, record_.name, record_.header_line, reason);
    ++length_skips_;
  }
  SkippedRecord s;
  s.name = record_.name;
  s.index_in_file = record_.index_in_file;
  s.length = bad_reason_.empty() ? out_.tail_size() : bad_length_;
  out_.drop_tail();
  s.reason = std::move(reason);
  out_.add_skipped(std::move(s));
}

void FastaParser::close_record() {
  if (!in_record_) return;
  in_record_ = false;
  if (!bad_reason_.empty()) return skip_record(bad_reason_, true);
  const std::size_t length = out_.tail_size();
  if (length == 0) {
    if (!options_.skip_bad_records)
      throw InputError(located(file_, static_cast<long>(record_.header_line), 0,
                               fmt::format("empty record '{}' (no sequence after the header)", record_.name)));
    return skip_record("empty record", true);
  }
  if (length < options_.min_length)
    return skip_record(fmt::format("shorter than min_length {}", options_.min_length), false);
  if (options_.max_length > 0 && length > options_.max_length)
    return skip_record(fmt::format("longer than max_length {}", options_.max_length), false);
  out_.commit_tail(std::move(record_));
}

void FastaParser::finish() {
  if (mode_ == Mode::header) end_header();  // a last header without a newline
  mode_ = Mode::line_start;
  pending_cr_ = false;
  close_record();
  if (headers_seen_ == 0) {
    if (line_ == 1 && column_ == 0)
      throw InputError(located(file_, 0, 0, "no records: the file is empty"));
    throw InputError(located(file_, static_cast<long>(line_), 0, "no records (no line starts with '>')"));
  }
  if (warnings_ > kMaxWarnings)
    spdlog::warn("{}: {} more records skipped as bad (see the skipped list)", file_, warnings_ - kMaxWarnings);
  if (length_skips_ > 0)
    spdlog::info("{}: {} records skipped for their length (min_length {}, max_length {})", file_, length_skips_,
                 options_.min_length, options_.max_length);
}

}  // namespace screen::seq::detail
