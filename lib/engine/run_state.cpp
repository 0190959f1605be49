#include "engine/run_state.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/sha256.hpp"
#include "store/durable.hpp"

namespace screen::engine {

namespace {

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> f;
  std::size_t b = 0;
  while (true) {
    const std::size_t e = line.find('\t', b);
    f.push_back(line.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) return f;
    b = e + 1;
  }
}

// run.info's first line. Version 1 (no checksum line) is still read, and checked for completeness.
constexpr const char* kHeader1 = "# screen run 1";
constexpr const char* kHeader2 = "# screen run 2";

// What to do about a run.info that cannot be trusted; names the manifest when the file still does.
[[noreturn]] void damaged(const std::string& path, const std::string& manifest, const std::string& what) {
  throw InputError(fmt::format(
      "{}: damaged run.info ({}); the job's state cannot be trusted. Start the job over with `screen run {} "
      "--restart` (every shard is recomputed)",
      path, what, manifest.empty() ? std::string("MANIFEST") : manifest));
}

// The manifest path from a damaged file's "manifest" line, when it survived (for the message only).
std::string manifest_line(const std::string& text) {
  const std::string key = "\nmanifest\t";
  const auto at = text.find(key);
  if (at == std::string::npos) return "";
  const auto end = text.find('\n', at + key.size());
  return end == std::string::npos ? "" : text.substr(at + key.size(), end - at - key.size());
}

// The header is known, the file ends with a whole line, and a version-2 file ends with the SHA-256
// line of everything before it (so a file cut anywhere, even at a line end, is caught).
void check_run_info_text(const std::string& path, std::string& text) {
  const std::string manifest = manifest_line(text);
  const auto eol = text.find('\n');
  const std::string header = text.substr(0, eol);
  if (header != kHeader1 && header != kHeader2)
    damaged(path, manifest, text.empty() ? "empty" : fmt::format("first line '{}', expected '{}'", header, kHeader2));
  if (text.back() != '\n') damaged(path, manifest, "the last line is cut off");
  if (header == kHeader1) return;
  const auto last = text.rfind('\n', text.size() - 2);  // the newline before the final line
  const std::string key = "sha256\t";
  const std::string line = last == std::string::npos ? "" : text.substr(last + 1, text.size() - last - 2);
  if (line.compare(0, key.size(), key) != 0) damaged(path, manifest, "no checksum line at the end: truncated");
  const std::string body = text.substr(0, last + 1);
  if (sha256_hex(body) != line.substr(key.size())) damaged(path, manifest, "checksum mismatch: modified or corrupt");
  text = body;
}

RunState parse_run_info(const std::string& path, const std::string& text) {
  RunState s;
  std::istringstream in(text);
  std::string line;
  long n = 0;
  try {
    while (std::getline(in, line)) {
      ++n;
      if (line.empty() || line[0] == '#') continue;
      const auto f = split_tabs(line);
      if (f[0] == "manifest" && f.size() == 2) {
        s.manifest_path = f[1];
      } else if (f[0] == "manifest_sha256" && f.size() == 2) {
        s.results_sha256 = f[1];
      } else if (f[0] == "plan_sha256" && f.size() == 2) {
        s.plan_sha256 = f[1];
      } else if (f[0] == "input" && f.size() == 5) {
        s.inputs.push_back({f[1], f[2], f[4], f[3]});
      } else if (f[0] == "units" && f.size() == 2) {
        s.units = std::stoull(f[1]);
      } else if (f[0] == "shard" && f.size() == 6) {
        plan::Shard sh;
        sh.id = std::stoll(f[1]);
        sh.unit_begin = std::stoull(f[2]);
        sh.unit_end = std::stoull(f[3]);
        sh.gpu_seconds = std::stod(f[4]);
        sh.cpu_core_seconds = std::stod(f[5]);
        s.shards.push_back(sh);
      } else {
        damaged(path, s.manifest_path, located(path, n, 0, "unexpected line"));
      }
    }
  } catch (const std::logic_error&) {  // stoull/stod
    damaged(path, s.manifest_path, located(path, n, 0, "bad number"));
  }
  return s;
}

bool is_sha256_hex(const std::string& h) {
  return h.size() == 64 && h.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// Every field a run writes is there, and the shards (ids 0, 1, ...) cover units 0..units in order;
// this is what catches a version-1 file cut at a line end.
void check_run_info_complete(const std::string& path, const RunState& s) {
  const std::string& m = s.manifest_path;
  if (m.empty()) damaged(path, m, "no manifest line");
  if (!is_sha256_hex(s.results_sha256)) damaged(path, m, "no valid manifest_sha256 line");
  if (!is_sha256_hex(s.plan_sha256)) damaged(path, m, "no valid plan_sha256 line");
  if (s.inputs.empty()) damaged(path, m, "no input lines");
  for (const auto& f : s.inputs)
    if (!is_sha256_hex(f.sha256)) damaged(path, m, fmt::format("input {}: not a SHA-256", f.path));
  std::uint64_t next = 0;
  for (std::size_t i = 0; i < s.shards.size(); ++i) {
    const plan::Shard& sh = s.shards[i];
    if (sh.id != static_cast<std::int64_t>(i) || sh.unit_begin != next || sh.unit_end < sh.unit_begin)
      damaged(path, m, fmt::format("shard {} does not follow shard {}", sh.id, static_cast<long>(i) - 1));
    next = sh.unit_end;
  }
  if (next != s.units)
    damaged(path, m, fmt::format("the shards cover {} units, the units line says {}", next, s.units));
}

}  // namespace

std::string run_info_path(const std::string& output) { return output + "/run.info"; }
std::string timing_path(const std::string& output) { return output + "/timing"; }

void write_run_state(const std::string& output, const RunState& s) {
  std::string text = std::string(kHeader2) + "\n";
  text += fmt::format("manifest\t{}\nmanifest_sha256\t{}\nplan_sha256\t{}\n", s.manifest_path, s.results_sha256,
                      s.plan_sha256);
  for (const auto& f : s.inputs) text += fmt::format("input\t{}\t{}\t{}\t{}\n", f.side, f.set, f.sha256, f.path);
  text += fmt::format("units\t{}\n", s.units);
  for (const auto& sh : s.shards)
    text += fmt::format("shard\t{}\t{}\t{}\t{:.6g}\t{:.6g}\n", sh.id, sh.unit_begin, sh.unit_end, sh.gpu_seconds,
                        sh.cpu_core_seconds);
  text += fmt::format("sha256\t{}\n", sha256_hex(text));  // last: a truncated or edited file fails it
  const std::string path = run_info_path(output);
  const std::string tmp = store::temporary_name(path);
  {
    errno = 0;
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    out.close();
    if (!out) {
      const int err = errno;
      std::remove(tmp.c_str());
      throw ResourceError(fmt::format("{}: cannot write{}", path, err ? std::string(": ") + std::strerror(err) : ""));
    }
  }
  try {
    store::commit_file(tmp, path);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
}

bool read_run_state(const std::string& output, RunState& s) {
  const std::string path = run_info_path(output);
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw InputError(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
  std::string text = buf.str();
  check_run_info_text(path, text);
  s = parse_run_info(path, text);
  check_run_info_complete(path, s);
  return true;
}

void append_timing(const std::string& output, const TimingEntry& e) {
  const std::string line = fmt::format("{}\t{}\t{:.3f}\t{:.3f}\t{}\t{}\n", e.shard_id, e.units, e.end_unix,
                                       e.wall_seconds, e.device, e.host);
  const std::string path = timing_path(output);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw ResourceError(fmt::format("{}: cannot open for appending", path));
  const ssize_t w = ::write(fd, line.data(), line.size());
  ::close(fd);
  if (w != static_cast<ssize_t>(line.size())) throw ResourceError(fmt::format("{}: cannot append", path));
}

std::vector<TimingEntry> read_timing(const std::string& output) {
  std::vector<TimingEntry> v;
  std::ifstream in(timing_path(output));
  std::string line;
  while (std::getline(in, line)) {
    const auto f = split_tabs(line);
    if (f.size() != 6) continue;
    try {
      v.push_back({std::stoll(f[0]), std::stoull(f[1]), std::stod(f[2]), std::stod(f[3]), f[4], f[5]});
    } catch (const std::logic_error&) {
    }
  }
  return v;
}

}  // namespace screen::engine
