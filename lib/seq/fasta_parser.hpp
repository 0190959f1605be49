#pragma once
// FastaParser: the FASTA rules of docs/algorithms.md (Sequences) as a streaming state machine. Content
// arrives in chunks of any size (a line may span chunks); each record's codes are written straight
// into the SequenceSet's open tail and committed or dropped when the record closes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "seq/sequence_set.hpp"

namespace screen::seq::detail {

class FastaParser {
 public:
  FastaParser(std::string display_name, const FastaOptions& options, SequenceSet& out);

  void feed(const char* data, std::size_t size);
  // End of input: closes the last record; throws InputError when the input held no record.
  void finish();

 private:
  enum class Mode { line_start, header, sequence };

  void sequence_segment(const char* p, const char* end, bool ends_line);
  // A byte that is not a code: dropped, turned into N, marks the record bad, or throws.
  bool special_byte(unsigned char byte, std::uint8_t cls, std::size_t column, std::uint8_t& code_out);
  void end_header();
  void open_record(std::string header_text);
  void close_record();
  void skip_record(std::string reason, bool warn);
  void lone_cr(std::size_t column);  // a '\r' not at the end of its line

  std::string file_;
  FastaOptions options_;
  SequenceSet& out_;

  Mode mode_ = Mode::line_start;
  std::size_t line_ = 1;
  std::size_t column_ = 0;     // bytes of the current line already consumed
  bool at_input_start_ = true;
  bool pending_cr_ = false;    // a chunk ended in '\r' inside a sequence line
  std::size_t pending_cr_column_ = 0;
  std::string header_;

  bool in_record_ = false;
  SequenceRecord record_;
  std::string bad_reason_;     // non-empty: the open record is skipped when closed
  std::size_t bad_length_ = 0; // sequence bytes of a bad record, for its SkippedRecord

  std::size_t headers_seen_ = 0;
  std::size_t warnings_ = 0;
  std::size_t length_skips_ = 0;
  std::unordered_map<std::string, std::size_t> first_line_of_name_;
};

}  // namespace screen::seq::detail
