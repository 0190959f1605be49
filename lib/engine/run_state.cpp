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

}  // namespace

std::string run_info_path(const std::string& output) { return output + "/run.info"; }
std::string timing_path(const std::string& output) { return output + "/timing"; }

void write_run_state(const std::string& output, const RunState& s) {
  std::string text = "# screen run 1\n";
  text += fmt::format("manifest\t{}\nmanifest_sha256\t{}\nplan_sha256\t{}\n", s.manifest_path, s.manifest_sha256,
                      s.plan_sha256);
  for (const auto& f : s.inputs) text += fmt::format("input\t{}\t{}\t{}\t{}\n", f.side, f.set, f.sha256, f.path);
  text += fmt::format("units\t{}\n", s.units);
  for (const auto& sh : s.shards)
    text += fmt::format("shard\t{}\t{}\t{}\t{:.6g}\t{:.6g}\n", sh.id, sh.unit_begin, sh.unit_end, sh.gpu_seconds,
                        sh.cpu_core_seconds);
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
  std::ifstream in(path);
  if (!in) return false;
  s = RunState{};
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
        s.manifest_sha256 = f[1];
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
        throw InputError(located(path, n, 0, "unexpected line"));
      }
    }
  } catch (const std::logic_error&) {  // stoull/stod
    throw InputError(located(path, n, 0, "bad number"));
  }
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
