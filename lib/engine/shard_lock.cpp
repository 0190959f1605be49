#include "engine/shard_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "common/error.hpp"

namespace screen::engine {

FileLock::FileLock(const std::string& path, Mode mode, bool wait) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw ResourceError(fmt::format("{}: cannot open the lock file: {}", path, std::strerror(errno)));
  const int op = (mode == Mode::shared ? LOCK_SH : LOCK_EX) | (wait ? 0 : LOCK_NB);
  int rc;
  while ((rc = ::flock(fd_, op)) != 0 && errno == EINTR) {
  }
  if (rc == 0) {
    locked_ = true;
  } else if (errno != EWOULDBLOCK) {
    const int e = errno;
    ::close(fd_);
    fd_ = -1;
    throw ResourceError(fmt::format("{}: cannot lock: {}", path, std::strerror(e)));
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

ShardLock::ShardLock(const std::string& output, std::int64_t shard)
    : output_(output + "/.lock", FileLock::Mode::shared, false),
      shard_(shard_lock_path(output, shard), FileLock::Mode::exclusive, false) {
  if (!output_.locked())
    throw ConflictError(fmt::format("{}: a full `screen run` or `screen merge` holds the output folder", output));
  if (!shard_.locked())
    throw ConflictError(fmt::format("{}: shard {} is being run by another process", output, shard));
}

std::string journal_lock_path(const std::string& output) { return output + "/.lock-journal"; }

std::string shard_lock_path(const std::string& output, std::int64_t shard) {
  return fmt::format("{}/.lock-shard-{}", output, shard);
}

}  // namespace screen::engine
