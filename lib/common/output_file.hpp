#pragma once
// OutputFile: text output of a command, to standard output or to a file. A file is written under a
// temporary name beside it and renamed into place by commit(), so an interrupted or failed command
// never leaves a truncated result under the final name; without commit() the temporary is removed.
// A file name ending in ".gz" is written gzip-compressed.
#include <cstdio>
#include <string>
#include <string_view>

namespace screen {

class OutputFile {
 public:
  // path empty or "-": standard output.
  explicit OutputFile(std::string path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(std::string_view text);
  void commit();  // flush, close, rename into place (throws ResourceError on any failure)

  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(const char* what) const;
  std::string path_;
  std::string temp_path_;
  std::FILE* file_ = nullptr;
  void* gz_ = nullptr;  // zlib's gzFile over file_'s descriptor, for a ".gz" name
  bool to_stdout_ = false;
};

}  // namespace screen
