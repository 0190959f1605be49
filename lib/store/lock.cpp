#include "store/lock.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>

#include "common/error.hpp"

namespace screen::store {

namespace {

[[noreturn]] void io_fail(const std::string& path, const char* what, int err) {
  throw ResourceError(fmt::format("{}: {}: {}", path, what, std::strerror(err)));
}

std::string read_fd(int fd) {
  std::string text;
  char buf[512];
  off_t off = 0;
  while (text.size() < 4096) {
    const ssize_t n = ::pread(fd, buf, sizeof buf, off);
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    off += n;
  }
  return text;
}

// The value after "<key> " on its own line, or "unknown".
std::string field(const std::string& text, const std::string& key) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = text.substr(pos, nl - pos);
    if (line.rfind(key + " ", 0) == 0 && line.size() > key.size() + 1) return line.substr(key.size() + 1);
    pos = nl + 1;
  }
  return "unknown";
}

}  // namespace

std::string host_name() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "unknown";
  return buf;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

OutputLock::OutputLock(const std::string& output_dir) : path_(output_dir + "/.lock") {
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) io_fail(path_, "cannot open the lock file", errno);
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err == EWOULDBLOCK) {
      // The holder writes its identity right after locking; give it a moment if it is empty.
      std::string text = read_fd(fd_);
      for (int tries = 0; tries < 20 && text.find("pid ") == std::string::npos; ++tries) {
        ::usleep(10000);
        text = read_fd(fd_);
      }
      ::close(fd_);
      fd_ = -1;
      throw ConflictError(fmt::format(
          "output folder {} is in use by another screen run (pid {} on host {}, since {}); wait for it to "
          "finish, or stop it, before starting another run on this folder",
          output_dir, field(text, "pid"), field(text, "host"), field(text, "since")));
    }
    ::close(fd_);
    fd_ = -1;
    io_fail(path_, "cannot lock", err);
  }
  const std::string text = fmt::format("pid {}\nhost {}\nsince {}\n", static_cast<long>(::getpid()), host_name(), utc_now());
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()) ||
      ::fsync(fd_) != 0) {
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    io_fail(path_, "cannot write the lock file", err);
  }
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  if (::ftruncate(fd_, 0) != 0) {
    // Nothing to do: the lock is released by close() below either way.
  }
  ::close(fd_);
}

}  // namespace screen::store
