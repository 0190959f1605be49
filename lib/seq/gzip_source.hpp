#pragma once
// FileSource: the bytes of a FASTA file in large chunks, inflated when the file is gzip (detected by
// its first two bytes, 1f 8b; concatenated gzip members are read one after another), while the
// SHA-256 of the bytes as stored is computed in the same pass.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/sha256.hpp"

namespace screen::seq::detail {

// The path that stands for standard input ("-"): read once per process, replayed to every reader.
inline constexpr const char* kStandardInput = "-";

class FileSource {
 public:
  static constexpr std::size_t kChunk = std::size_t(1) << 20;

  // Opens `path` ("-": standard input); throws InputError naming the path and the system's reason
  // when it cannot.
  explicit FileSource(std::string path);
  ~FileSource();
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  // The next chunk of content (decompressed for gzip); false at the end of the file. The view
  // stays valid until the next call. Throws InputError on read errors and corrupt or truncated gzip.
  bool next(const char*& data, std::size_t& size);

  bool gzip() const { return gzip_; }
  std::uint64_t file_bytes() const { return raw_total_; }  // bytes read from the file so far
  std::uint64_t stored_size() const { return stored_size_; }  // the file's size, 0 if unknown
  // SHA-256 of every byte of the file; call after next() returned false.
  std::string sha256_hex() { return hash_.hex_digest(); }

 private:
  void fill_raw();
  bool next_gzip(const char*& data, std::size_t& size);
  [[noreturn]] void gzip_error(const std::string& what) const;

  std::string path_;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_;
  std::vector<unsigned char> raw_;
  std::size_t raw_len_ = 0;
  std::size_t raw_pos_ = 0;       // plain files: how much of raw_ was handed out
  bool raw_eof_ = false;
  std::uint64_t raw_total_ = 0;
  std::uint64_t stored_size_ = 0;
  Sha256 hash_;

  bool gzip_ = false;
  struct Inflater;
  std::unique_ptr<Inflater> inflater_;
  std::vector<char> out_;
};

}  // namespace screen::seq::detail
