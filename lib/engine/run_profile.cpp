#include "engine/run_profile.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "store/durable.hpp"

namespace screen::engine {

namespace fs = std::filesystem;

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

constexpr plan::StageKind kStages[] = {plan::StageKind::nussinov, plan::StageKind::miranda, plan::StageKind::bpmax};
constexpr const char* kHeader =
    "worker\tstage\tunits\tbatches\tbusy_s\tgpu_s\ttraceback_s\thost_s\toverlap_s\twrite_s\twait_s";

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> f;
  std::size_t b = 0;
  for (;;) {
    const std::size_t e = line.find('\t', b);
    f.push_back(line.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) return f;
    b = e + 1;
  }
}

// A worker name that cannot break a line or a column.
std::string cell_text(std::string s) {
  for (char& c : s)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return s;
}

}  // namespace

void ProfileCell::add(const ProfileCell& o) {
  units += o.units;
  batches += o.batches;
  busy += o.busy;
  gpu += o.gpu;
  traceback += o.traceback;
  write += o.write;
  overlap += o.overlap;
}

void RunProfile::add_host_task(const std::string& worker, plan::StageKind stage, double seconds, double waited) {
  add_worker(worker);
  std::lock_guard<std::mutex> hold(mutex_);
  ProfileCell& c = cells_[{worker, static_cast<int>(stage)}];
  c.overlap += seconds;
  c.busy += waited;
}

RunProfile::RunProfile() : start_(now_seconds()) {}

void RunProfile::add_worker(const std::string& worker) {
  std::lock_guard<std::mutex> hold(mutex_);
  if (std::find(workers_.begin(), workers_.end(), worker) == workers_.end()) workers_.push_back(worker);
}

void RunProfile::add_batch(const std::string& worker, plan::StageKind stage, std::uint64_t units, double busy,
                           double gpu, double traceback) {
  add_worker(worker);
  std::lock_guard<std::mutex> hold(mutex_);
  ProfileCell& c = cells_[{worker, static_cast<int>(stage)}];
  c.units += units;
  ++c.batches;
  c.busy += busy;
  // Event times of overlapped work can exceed the host's wall time of the call: never more than busy.
  c.gpu += std::min(gpu, busy);
  c.traceback += std::min(traceback, busy - std::min(gpu, busy));
}

void RunProfile::add_write(const std::string& worker, plan::StageKind stage, double seconds) {
  add_worker(worker);
  std::lock_guard<std::mutex> hold(mutex_);
  cells_[{worker, static_cast<int>(stage)}].write += seconds;
}

double RunProfile::wall_seconds() const { return now_seconds() - start_; }

ProfileTable RunProfile::table(const std::string& state) const {
  std::lock_guard<std::mutex> hold(mutex_);
  ProfileTable t;
  t.wall_seconds = now_seconds() - start_;
  t.state = state;
  for (const auto& w : workers_) {
    ProfileRow all{w, "all", {}, 0};
    for (const plan::StageKind k : kStages) {
      auto it = cells_.find({w, static_cast<int>(k)});
      if (it == cells_.end()) continue;
      t.rows.push_back({w, std::string(manifest::stage_name(k)), it->second, 0});
      all.cell.add(it->second);
    }
    all.wait = std::max(0.0, t.wall_seconds - all.cell.busy - all.cell.write);
    t.rows.push_back(all);
  }
  return t;
}

std::string profile_path(const std::string& output, bool shard_run, std::int64_t shard) {
  return shard_run ? fmt::format("{}/profile.shard-{:06d}.tsv", output, shard) : output + "/profile.tsv";
}

void save_profile(const std::string& path, const ProfileTable& t) {
  std::string text = "# screen profile 1\n";
  text += fmt::format("# wall_s\t{:.3f}\tstate\t{}\n", t.wall_seconds, t.state);
  text += std::string(kHeader) + "\n";
  for (const auto& r : t.rows)
    text += fmt::format("{}\t{}\t{}\t{}\t{:.3f}\t{:.3f}\t{:.3f}\t{:.3f}\t{:.3f}\t{:.3f}\t{}\n", cell_text(r.worker),
                        r.stage, r.cell.units, r.cell.batches, r.cell.busy, r.cell.gpu, r.cell.traceback,
                        r.cell.host(), r.cell.overlap, r.cell.write,
                        r.stage == "all" ? fmt::format("{:.3f}", r.wait) : std::string("-"));
  const std::string tmp = store::temporary_name(path);
  try {
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      out << text;
      out.close();
      if (!out) throw std::runtime_error("cannot write " + tmp);
    }
    fs::rename(tmp, path);
  } catch (const std::exception& e) {
    std::error_code ec;
    fs::remove(tmp, ec);
    spdlog::debug("profile not saved: {}", e.what());
  }
}

ProfileTable read_profiles(const std::string& output) {
  ProfileTable sum;
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(output, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("profile", 0) == 0 && name.size() > 4 && name.compare(name.size() - 4, 4, ".tsv") == 0)
      files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  for (const auto& path : files) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      const auto f = split_tabs(line);
      if (line.rfind("# wall_s\t", 0) == 0 && f.size() >= 4) {
        try {
          sum.wall_seconds = std::max(sum.wall_seconds, std::stod(f[1]));
        } catch (const std::logic_error&) {
        }
        sum.state = sum.state.empty() || sum.state == f[3] ? f[3] : "mixed";
        continue;
      }
      if (line.empty() || line[0] == '#' || f.size() != 11 || f[0] == "worker") continue;
      try {
        ProfileRow r{f[0], f[1], {}, 0};
        r.cell.units = std::stoull(f[2]);
        r.cell.batches = std::stoull(f[3]);
        r.cell.busy = std::stod(f[4]);
        r.cell.gpu = std::stod(f[5]);
        r.cell.traceback = std::stod(f[6]);
        r.cell.overlap = std::stod(f[8]);
        r.cell.write = std::stod(f[9]);
        r.wait = f[10] == "-" ? 0 : std::stod(f[10]);
        const auto key = std::make_pair(r.worker, r.stage);
        auto it = index.find(key);
        if (it == index.end()) {
          index[key] = sum.rows.size();
          sum.rows.push_back(r);
        } else {
          sum.rows[it->second].cell.add(r.cell);
          sum.rows[it->second].wait += r.wait;
        }
      } catch (const std::logic_error&) {
      }
    }
  }
  return sum;
}

std::string format_profile(const ProfileTable& t) {
  if (t.rows.empty()) return "";
  const double wall = std::max(t.wall_seconds, 1e-9);
  std::string s = fmt::format("profile ({:.1f} s wall{}):\n", t.wall_seconds, t.state.empty() ? "" : ", " + t.state);
  s += fmt::format("  {:<44} {:<9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}\n", "worker", "stage", "units",
                   "busy s", "gpu s", "trace s", "host s", "beside s", "write s", "wait s");
  for (const auto& r : t.rows) {
    s += fmt::format("  {:<44} {:<9} {:>9} {:>9.1f} {:>9.1f} {:>9.1f} {:>9.1f} {:>9.1f} {:>9.1f} {:>9}\n",
                     r.worker.size() > 44 ? r.worker.substr(0, 41) + "..." : r.worker, r.stage, r.cell.units,
                     r.cell.busy, r.cell.gpu, r.cell.traceback, r.cell.host(), r.cell.overlap, r.cell.write,
                     r.stage == "all" ? fmt::format("{:.1f}", r.wait) : std::string("-"));
    if (r.stage == "all")
      s += fmt::format("  {:<44} busy {:.0f}% of the wall time, GPU {:.0f}%, waiting {:.0f}%\n", "",
                       100 * r.cell.busy / wall, 100 * r.cell.gpu / wall, 100 * r.wait / wall);
  }
  return s;
}

}  // namespace screen::engine
