#include "store/durable.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/error.hpp"

namespace screen::store {

namespace {
[[noreturn]] void fail(const std::string& path, const char* what, int err) {
  throw ResourceError(fmt::format("{}: {}: {}", path, what, std::strerror(err)));
}

void fsync_path(const std::string& path, int flags, const char* what) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) fail(path, what, errno);
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    fail(path, what, err);
  }
  ::close(fd);
}
}  // namespace

std::string temporary_name(const std::string& path) {
  return fmt::format("{}.tmp.{}", path, static_cast<long>(::getpid()));
}

std::string parent_directory(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

void fsync_file(const std::string& path) { fsync_path(path, O_RDONLY, "cannot sync to disk"); }

void fsync_directory(const std::string& dir) { fsync_path(dir, O_RDONLY | O_DIRECTORY, "cannot sync the folder"); }

void commit_file(const std::string& from, const std::string& to) {
  fsync_file(from);
  if (std::rename(from.c_str(), to.c_str()) != 0) {
    const int err = errno;
    fail(to, fmt::format("cannot rename {} into place", from).c_str(), err);
  }
  fsync_directory(parent_directory(to));
}

}  // namespace screen::store
