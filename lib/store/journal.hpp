#pragma once
// Journal: an append-only text file in the output folder recording completed shards, one line
// each, written after the shard's part file was renamed into place:
//
//   # screen journal 1
//   shard<TAB><shard id><TAB><part file name><TAB><checksum>
//
// Each line is written with one write() on an O_APPEND descriptor and fsync'd before record()
// returns. A crash can leave only the last line torn (no newline): read_journal ignores it with a
// warning, and opening a Journal cuts it off before appending. A complete line that does not parse
// is corruption and an error.
#include <cstdint>
#include <string>
#include <vector>

namespace screen::store {

struct JournalEntry {
  std::int64_t shard_id = 0;
  std::string part_file;  // name in the output folder (no tab, newline or '/')
  std::string checksum;   // the part's content checksum (64 hex digits)
};

struct JournalContents {
  std::vector<JournalEntry> entries;  // in file order (a shard may appear more than once when re-run)
  bool torn_tail = false;             // the file ended with a partial line (ignored)
  std::string torn_text;              // that partial line
};

// Reads a journal; a missing file is an empty journal. Throws InputError (file:line) for a
// complete line that does not parse, ResourceError when the file cannot be read.
JournalContents read_journal(const std::string& path);

class Journal {
 public:
  // Opens (creating with its header line) for appending; a torn last line is cut off (warning).
  explicit Journal(std::string path);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // Appends one line and fsyncs it. Throws ResourceError on I/O failure, Error(internal) for an
  // entry that cannot be written as one line.
  void record(const JournalEntry& e);

  const std::string& path() const { return path_; }

 private:
  void write_all(const std::string& text);
  std::string path_;
  int fd_ = -1;
};

}  // namespace screen::store
