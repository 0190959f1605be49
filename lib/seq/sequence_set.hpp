#pragma once
// SequenceSet: the records of one FASTA input, as nucleotide codes (alphabet.hpp) in one contiguous
// buffer (ready to upload to a GPU), with names, lengths, positions in the file, the file's SHA-256,
// and the records that were skipped with the reason. Reading rules: docs/algorithms.md (Sequences).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace screen::seq {

struct SequenceRecord {
  std::string name;             // header text up to the first white space
  std::string description;      // the rest of the header line (trimmed)
  std::size_t index_in_file = 0;  // 0-based position among all records of the file, skipped ones included
  std::size_t header_line = 0;  // 1-based line of the '>' header
  std::size_t offset = 0;       // start of the record's codes in SequenceSet::codes()
  std::size_t length = 0;
};

struct SkippedRecord {
  std::string name;
  std::size_t index_in_file = 0;
  std::size_t length = 0;
  std::string reason;           // "shorter than min_length 20", "invalid character 'X' at line 5, column 3", ...
};

struct FastaOptions {
  std::size_t min_length = 0;    // records shorter are skipped (listed in skipped())
  std::size_t max_length = 0;    // 0 = no limit; records longer are skipped (listed in skipped())
  bool mask_x = false;           // accept X as a masked base (N), as miRanda does
  bool strip_invalid = false;    // drop gaps ('-', '.'), digits and white space inside sequence lines
  bool skip_whitespace = false;  // drop white space inside sequence lines only (miRanda ignores it)
  bool skip_bad_records = false; // a record with an invalid character is skipped with a warning, not an error
};

class SequenceSet {
 public:
  std::size_t size() const { return records_.size(); }
  bool empty() const { return records_.empty(); }
  const SequenceRecord& record(std::size_t i) const { return records_[i]; }
  const std::vector<SequenceRecord>& records() const { return records_; }
  const std::uint8_t* codes(std::size_t i) const { return codes_.data() + records_[i].offset; }
  std::size_t length(std::size_t i) const { return records_[i].length; }
  const std::vector<std::uint8_t>& codes() const { return codes_; }  // all records, concatenated
  std::size_t total_length() const { return codes_.size(); }
  std::string letters(std::size_t i) const;  // "ACGUN..." of record i

  const std::vector<SkippedRecord>& skipped() const { return skipped_; }
  const std::string& source_path() const { return source_path_; }
  const std::string& sha256() const { return sha256_; }  // of the file's bytes as stored (compressed or not)

  // Building (used by the reader and by tests).
  void add(SequenceRecord record, const std::uint8_t* codes, std::size_t n);
  // Building a record in place, as the FASTA reader does: the codes after the last record form an
  // open tail; extend_tail(n) makes n more writable bytes there, truncate_tail(len) keeps its first
  // len, and commit_tail(record) turns it into `record` (offset and length set) or drop_tail()
  // discards it. add() must not be called while a tail is open.
  std::uint8_t* extend_tail(std::size_t n) {
    const std::size_t old = codes_.size();
    codes_.resize(old + n);
    return codes_.data() + old;
  }
  std::size_t tail_size() const { return codes_.size() - committed_; }
  void truncate_tail(std::size_t len) { codes_.resize(committed_ + len); }
  void drop_tail() { codes_.resize(committed_); }
  void commit_tail(SequenceRecord record);
  void add_skipped(SkippedRecord skipped) { skipped_.push_back(std::move(skipped)); }
  void reserve(std::size_t total_codes) { codes_.reserve(total_codes); }
  void set_source(std::string path, std::string sha256) {
    source_path_ = std::move(path);
    sha256_ = std::move(sha256);
  }

 private:
  std::vector<SequenceRecord> records_;
  std::vector<std::uint8_t> codes_;
  std::size_t committed_ = 0;  // codes_ before this belong to records_
  std::vector<SkippedRecord> skipped_;
  std::string source_path_;
  std::string sha256_;
};

// Reads a FASTA file, plain or gzip (detected by content). Throws InputError naming the file, line
// and column for malformed input; duplicate names, empty records and a file with no records are errors.
// path "-": standard input (read once per process; a second "-" reads the same text).
SequenceSet read_fasta(const std::string& path, const FastaOptions& options = {});

// The same rules on text in memory; `display_name` stands for the file name in messages.
SequenceSet parse_fasta(std::string_view text, const std::string& display_name, const FastaOptions& options = {});

// Codes for a string of letters under the same rules (throws InputError on an invalid letter).
std::vector<std::uint8_t> encode(std::string_view letters, bool mask_x = false);
std::string decode(const std::uint8_t* codes, std::size_t n);

}  // namespace screen::seq
