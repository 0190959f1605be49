#include "store/journal.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "common/error.hpp"
#include "store/durable.hpp"

namespace screen::store {

namespace {

constexpr const char* kHeader = "# screen journal 1\n";

[[noreturn]] void io_fail(const std::string& path, const char* what, int err) {
  throw ResourceError(fmt::format("{}: {}: {}", path, what, std::strerror(err)));
}

bool is_hex64(const std::string& s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

bool parse_line(const std::string& line, JournalEntry& e) {
  std::vector<std::string> f;
  std::size_t start = 0;
  while (true) {
    const auto tab = line.find('\t', start);
    f.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  if (f.size() != 4 || f[0] != "shard" || f[2].empty() || !is_hex64(f[3])) return false;
  const char* b = f[1].data();
  const char* end = b + f[1].size();
  auto r = std::from_chars(b, end, e.shard_id);
  if (r.ec != std::errc() || r.ptr != end || f[1].empty()) return false;
  e.part_file = f[2];
  e.checksum = f[3];
  return true;
}

std::string read_all(const std::string& path, bool& exists) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {
      exists = false;
      return {};
    }
    io_fail(path, "cannot open the journal", errno);
  }
  exists = true;
  std::string text;
  char buf[65536];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      io_fail(path, "cannot read the journal", err);
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

}  // namespace

JournalContents read_journal(const std::string& path) {
  bool exists = false;
  const std::string text = read_all(path, exists);
  JournalContents out;
  std::size_t pos = 0;
  long line_no = 0;
  while (pos < text.size()) {
    const auto nl = text.find('\n', pos);
    ++line_no;
    if (nl == std::string::npos) {
      out.torn_tail = true;
      out.torn_text = text.substr(pos);
      spdlog::warn("{}:{}: ignoring a partial last line (a run was interrupted while recording a shard)", path, line_no);
      break;
    }
    const std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.empty() || line[0] == '#') continue;
    JournalEntry e;
    if (!parse_line(line, e))
      throw InputError(located(path, line_no, 0, fmt::format("not a journal line: \"{}\"", line)));
    out.entries.push_back(std::move(e));
  }
  return out;
}

Journal::Journal(std::string path) : path_(std::move(path)) {
  bool exists = false;
  const std::string text = read_all(path_, exists);
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) io_fail(path_, "cannot open the journal for appending", errno);
  try {
    if (!exists || text.empty()) {
      write_all(kHeader);
      if (::fsync(fd_) != 0) io_fail(path_, "cannot sync the journal", errno);
      fsync_directory(parent_directory(path_));
    } else if (text.back() != '\n') {
      const auto keep = text.rfind('\n');
      const off_t len = keep == std::string::npos ? 0 : static_cast<off_t>(keep + 1);
      spdlog::warn("{}: cutting off a partial last line (a run was interrupted while recording a shard)", path_);
      if (::ftruncate(fd_, len) != 0) io_fail(path_, "cannot cut off the partial last line", errno);
      if (len == 0) write_all(kHeader);
      if (::fsync(fd_) != 0) io_fail(path_, "cannot sync the journal", errno);
    }
  } catch (...) {
    ::close(fd_);
    fd_ = -1;
    throw;
  }
}

Journal::~Journal() {
  if (fd_ >= 0) ::close(fd_);
}

void Journal::write_all(const std::string& text) {
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      io_fail(path_, "cannot write to the journal", errno);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

void Journal::record(const JournalEntry& e) {
  if (e.part_file.empty() || e.part_file.find_first_of("\t\n\r/") != std::string::npos || !is_hex64(e.checksum))
    throw Error(ExitCode::internal,
                fmt::format("{}: cannot record shard {} (part file \"{}\", checksum \"{}\")", path_, e.shard_id,
                            e.part_file, e.checksum));
  write_all(fmt::format("shard\t{}\t{}\t{}\n", e.shard_id, e.part_file, e.checksum));
  if (::fsync(fd_) != 0) io_fail(path_, "cannot sync the journal", errno);
}

}  // namespace screen::store
