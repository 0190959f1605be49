#include "common/output_file.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/error.hpp"

namespace screen {

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  if (path_.empty() || path_ == "-") {
    to_stdout_ = true;
    file_ = stdout;
    return;
  }
  temp_path_ = fmt::format("{}.tmp.{}", path_, static_cast<long>(::getpid()));
  file_ = std::fopen(temp_path_.c_str(), "w");
  if (!file_) fail("cannot open for writing");
  if (path_.size() > 3 && path_.compare(path_.size() - 3, 3, ".gz") == 0) {
    // zlib writes through a duplicate of the descriptor; file_ keeps the original for fsync.
    const int fd = ::dup(::fileno(file_));
    if (fd < 0 || (gz_ = gzdopen(fd, "wb6")) == nullptr) {
      if (fd >= 0) ::close(fd);
      fail("cannot open for compressed writing");
    }
  }
}

OutputFile::~OutputFile() {
  if (gz_) gzclose(static_cast<gzFile>(gz_));
  if (!to_stdout_ && file_) {
    std::fclose(file_);
    std::remove(temp_path_.c_str());
  }
}

void OutputFile::write(std::string_view text) {
  if (!file_) throw Error(ExitCode::internal, fmt::format("{}: write after commit", path_));
  if (gz_) {
    // gzwrite takes an unsigned count: large texts in pieces.
    for (std::size_t at = 0; at < text.size();) {
      const unsigned n = static_cast<unsigned>(std::min<std::size_t>(text.size() - at, 1u << 30));
      if (gzwrite(static_cast<gzFile>(gz_), text.data() + at, n) != static_cast<int>(n)) fail("compressed write failed");
      at += n;
    }
    return;
  }
  if (!text.empty() && std::fwrite(text.data(), 1, text.size(), file_) != text.size()) fail("write failed");
}

void OutputFile::commit() {
  if (to_stdout_) {
    if (std::fflush(stdout) != 0) fail("write failed");
    return;
  }
  if (!file_) return;
  int err = 0;
  if (gz_) {
    const int zerr = gzclose(static_cast<gzFile>(gz_));  // the trailer, and the duplicate descriptor closed
    gz_ = nullptr;
    if (zerr != Z_OK) err = errno != 0 ? errno : EIO;
  }
  if (std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0) err = errno;
  if (std::fclose(file_) != 0 && err == 0) err = errno;
  file_ = nullptr;
  if (err != 0) {
    std::remove(temp_path_.c_str());
    errno = err;
    fail("write failed");
  }
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    err = errno;
    std::remove(temp_path_.c_str());
    errno = err;
    fail("cannot rename the finished output into place");
  }
}

void OutputFile::fail(const char* what) const {
  const std::string name = to_stdout_ ? std::string("standard output") : path_;
  throw ResourceError(fmt::format("{}: {}: {}", name, what, std::strerror(errno)));
}

}  // namespace screen
