#include "engine/engine.hpp"

#include <csignal>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/error.hpp"
#include "common/progress.hpp"
#include "engine/device.hpp"
#include "engine/run_state.hpp"
#include "engine/shard_lock.hpp"
#include "gpu/device_info.hpp"
#include "plan/stage_params.hpp"
#include "store/journal.hpp"
#include "store/lock.hpp"
#include "store/merge.hpp"
#include "store/part_file.hpp"

namespace screen::engine {

namespace fs = std::filesystem;

std::string part_name(std::int64_t id) { return fmt::format("part-{:06d}.h5", id); }

namespace {

// A batch handed to the device: at most this many units, about this many CPU-core seconds of work
// per thread (the engine checks for a stop request between batches).
constexpr std::size_t kBatchUnits = 4096;
constexpr double kBatchCoreSeconds = 8.0;

std::string journal_path(const std::string& output) { return output + "/journal"; }
std::string results_path(const std::string& output) { return output + "/results.h5"; }

RunState current_state(const manifest::Job& job, const Inputs& in, const plan::Plan& p) {
  RunState s;
  s.manifest_path = fs::absolute(job.manifest_path).lexically_normal().string();
  s.manifest_sha256 = job.manifest_sha256;
  s.plan_sha256 = p.hash;
  s.inputs = in.files;
  s.units = p.units.size();
  s.shards = p.shards;
  return s;
}

// What differs between an earlier run's state and this one ("" when nothing does).
std::string differences(const RunState& old, const RunState& now) {
  std::vector<std::string> d;
  if (old.manifest_sha256 != now.manifest_sha256)
    d.push_back(fmt::format("the manifest changed (SHA-256 {} then, {} now)", old.manifest_sha256.substr(0, 12),
                            now.manifest_sha256.substr(0, 12)));
  if (old.inputs.size() != now.inputs.size()) {
    d.push_back("the list of input files changed");
  } else {
    for (std::size_t i = 0; i < old.inputs.size(); ++i)
      if (old.inputs[i].sha256 != now.inputs[i].sha256 || old.inputs[i].set != now.inputs[i].set)
        d.push_back(fmt::format("input {} ({}) changed", now.inputs[i].path, now.inputs[i].set));
  }
  if (d.empty() && old.plan_sha256 != now.plan_sha256) d.push_back("the plan (shards) changed");
  std::string text;
  for (const auto& x : d) text += (text.empty() ? "" : "; ") + x;
  return text;
}

void clear_state(const std::string& output) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(output, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("part-", 0) == 0 || name == "journal" || name == "timing" || name == "run.info" ||
        name.rfind("results.h5", 0) == 0)
      fs::remove(e.path());
  }
}

// Temporary files of runs that died (a crash, SIGKILL): "<name>.tmp.<pid>" of a part, results.h5 or
// run.info. Only called with the lock held, so no live run owns them.
// With `only_shard` (a --shard task, which holds only that shard's lock), only that shard's part.
void remove_stale_temporaries(const std::string& output, const std::optional<std::int64_t>& only_shard) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(output, ec)) {
    const std::string name = e.path().filename().string();
    if (name.find(".tmp.") == std::string::npos) continue;
    const bool ours = only_shard ? name.rfind(part_name(*only_shard) + ".tmp.", 0) == 0
                                 : (name.rfind("part-", 0) == 0 || name.rfind("results.h5.", 0) == 0 ||
                                    name.rfind("run.info.", 0) == 0);
    if (ours) {
      spdlog::debug("removing {} (left by an interrupted run)", name);
      fs::remove(e.path(), ec);
    }
  }
}

struct ShardCheck {
  bool done = false;
  std::string reason;  // why a journal-recorded part was not trusted
};

// The shards of the plan whose journal entry names a part that verifies.
std::map<std::int64_t, ShardCheck> check_shards(const std::string& output, const plan::Plan& p,
                                                const std::string& manifest_sha256,
                                                const std::vector<std::string>& input_sha256) {
  std::map<std::int64_t, store::JournalEntry> last;
  for (const auto& e : store::read_journal(journal_path(output)).entries) last[e.shard_id] = e;
  std::map<std::int64_t, ShardCheck> out;
  for (const auto& s : p.shards) {
    auto it = last.find(s.id);
    if (it == last.end()) continue;
    ShardCheck c;
    const std::string path = output + "/" + it->second.part_file;
    if (it->second.part_file != part_name(s.id)) {
      c.reason = fmt::format("journal names {} for shard {}", it->second.part_file, s.id);
    } else {
      const store::PartCheck pc = store::PartReader::verify(path, manifest_sha256, input_sha256);
      if (!pc.ok())
        c.reason = pc.reason;
      else if (pc.checksum != it->second.checksum)
        c.reason = fmt::format("{}: checksum differs from the journal's", path);
      else
        c.done = true;
    }
    out[s.id] = c;
  }
  return out;
}

[[noreturn]] void stopped(int sig) {
  if (sig == SIGINT)
    throw Error(ExitCode::interrupted, "interrupted (SIGINT); run the same command again to resume");
  throw Error(ExitCode::terminated, fmt::format("stopped by signal {}; run the same command again to resume", sig));
}

store::MergeSpec merge_spec(const manifest::Job& job, const Inputs& in, const plan::Plan& p,
                            const std::string& output, const std::string& command_line) {
  store::MergeSpec spec;
  spec.job = &job;
  spec.inputs = in.files;
  spec.queries = in.query_rows;
  spec.targets = in.target_rows;
  spec.skipped = in.skipped;
  for (const auto& s : p.shards) spec.parts.push_back(output + "/" + part_name(s.id));
  spec.run.command_line = command_line;
  std::set<std::string> hosts, devices;
  for (const auto& t : read_timing(output)) {
    hosts.insert(t.host);
    devices.insert(t.device);
  }
  if (hosts.empty()) hosts.insert(store::host_name());
  spec.run.hosts.assign(hosts.begin(), hosts.end());
  spec.run.devices.assign(devices.begin(), devices.end());
  return spec;
}

void log_skipped(const Inputs& in) {
  for (const auto& s : in.skipped)
    spdlog::warn("{} set {}: record '{}' skipped: {}", s.side, s.set, s.name, s.reason);
}

// resources.devices: auto → GPU 0 when this build has CUDA and a GPU is usable, else the CPU pool;
// cpu → the CPU pool; a list → the first listed GPU (one GPU worker so far).
std::unique_ptr<Device> select_device(const manifest::Resources& r, int threads) {
  switch (r.devices) {
    case manifest::DeviceMode::cpu: return make_cpu_device(threads);
    case manifest::DeviceMode::automatic:
      if (gpu::built_with_cuda() && gpu::gpu_count() > 0) return make_gpu_device(0, threads);
      spdlog::info("resources.devices is auto and no GPU is usable ({}); running on the CPU", gpu::no_gpu_reason());
      return make_cpu_device(threads);
    case manifest::DeviceMode::gpus: {
      if (r.gpu_ids.empty()) throw ResourceError("resources.devices lists no GPU");
      const int count = gpu::gpu_count();
      for (const int id : r.gpu_ids) {
        if (id < 0 || id >= count)
          throw ResourceError(count == 0 ? fmt::format("resources.devices: GPU {} is not usable: {}", id,
                                                       gpu::no_gpu_reason())
                                         : fmt::format("resources.devices: GPU {} does not exist (this machine has {} "
                                                       "GPU{})",
                                                       id, count, count == 1 ? "" : "s"));
      }
      if (r.gpu_ids.size() > 1)
        spdlog::warn("resources.devices lists {} GPUs, but the engine runs one GPU worker so far; using GPU {} only "
                     "(multi-GPU workers are the next step)",
                     r.gpu_ids.size(), r.gpu_ids.front());
      return make_gpu_device(r.gpu_ids.front(), threads);
    }
  }
  throw Error(ExitCode::internal, "select_device: no device mode");
}

}  // namespace

RunSummary run_job(const manifest::Job& job, const RunOptions& options) {
  const std::string output = job.output;
  {
    std::error_code ec;
    fs::create_directories(output, ec);
    if (ec) throw ResourceError(fmt::format("{}: cannot create the output folder: {}", output, ec.message()));
  }
  // A full run holds the folder alone; --shard tasks share it, each holding its shard (shard_lock.hpp).
  if (options.shard && options.restart)
    throw UsageError("--restart starts the whole job over and cannot be combined with --shard");
  std::optional<store::OutputLock> lock;
  std::optional<ShardLock> shard_lock;
  if (options.shard)
    shard_lock.emplace(output, *options.shard);
  else
    lock.emplace(output);
  remove_stale_temporaries(output, options.shard);

  const Inputs in = load_inputs(job);
  log_skipped(in);
  const plan::Plan p = plan::make_plan(job, in.query_lengths(), in.target_lengths(), options.shards);
  const plan::StageParams params = plan::stage_params(job);
  const RunState now = current_state(job, in, p);
  const std::vector<std::string> input_sha = in.input_sha256();

  RunState old;
  const bool have_old = read_run_state(output, old);
  if (options.restart) {
    clear_state(output);
  } else if (have_old) {
    const std::string diff = differences(old, now);
    if (!diff.empty())
      throw ConflictError(fmt::format("{} holds an earlier run that cannot be resumed: {}; use --restart to start over",
                                      output, diff));
  } else if (fs::exists(journal_path(output))) {
    throw ConflictError(fmt::format("{} has a journal but no run.info; use --restart to start over", output));
  }
  if (options.restart || !have_old) write_run_state(output, now);

  RunSummary sum;
  sum.shards_total = p.shards.size();
  sum.units_total = p.units.size();
  const auto checks = check_shards(output, p, job.manifest_sha256, input_sha);
  std::set<std::int64_t> done;
  for (const auto& [id, c] : checks) {
    if (c.done) {
      done.insert(id);
      sum.reused.push_back(id);
    } else {
      spdlog::warn("shard {}: recorded part not trusted ({}); recomputing it", id, c.reason);
      sum.recomputed.push_back(id);
    }
  }

  std::vector<const plan::Shard*> todo;
  if (options.shard) {
    const std::int64_t k = *options.shard;
    if (k < 0 || k >= static_cast<std::int64_t>(p.shards.size()))
      throw UsageError(fmt::format("--shard {}: the plan has shards 0..{}", k, p.shards.size() - 1));
    if (done.count(k))
      spdlog::info("shard {} is already complete", k);
    else
      todo.push_back(&p.shards[static_cast<std::size_t>(k)]);
  } else {
    for (const auto& s : p.shards)
      if (!done.count(s.id)) todo.push_back(&s);
  }
  std::uint64_t todo_units = 0;
  for (const auto* s : todo) todo_units += s->units();
  spdlog::info("{}: {} shards, {} units; {} complete, {} to run ({} units)", job.name, p.shards.size(),
               p.units.size(), done.size(), todo.size(), todo_units);

  if (!todo.empty()) {
    const int threads = options.threads > 0 ? options.threads : job.resources.cpu_threads;
    std::unique_ptr<Device> device = select_device(job.resources, threads);
    spdlog::info("device: {}", device->name());
    // A full run appends through one Journal; a --shard task opens it for each line under the
    // journal lock, as other tasks append to the same file.
    std::unique_ptr<store::Journal> journal;
    if (!options.shard) journal = std::make_unique<store::Journal>(journal_path(output));
    auto record = [&](const store::JournalEntry& e) {
      if (journal) {
        journal->record(e);
        return;
      }
      FileLock held(journal_lock_path(output), FileLock::Mode::exclusive, true);
      store::Journal(journal_path(output)).record(e);
    };
    Progress progress("run", "units", todo_units, options.progress_interval);
    const std::string host = store::host_name();
    std::uint64_t units_done = 0;
    for (const plan::Shard* s : todo) {
      if (options.stop && options.stop->load()) stopped(options.stop->load());
      const auto t0 = std::chrono::steady_clock::now();
      store::PartInfo info;
      info.shard_id = s->id;
      info.unit_begin = s->unit_begin;
      info.unit_end = s->unit_end;
      info.manifest_sha256 = job.manifest_sha256;
      info.input_sha256 = input_sha;
      info.stages = store::canonical_stages(job.stage_order);
      store::PartWriter writer(output + "/" + part_name(s->id), info);
      std::size_t i = s->unit_begin;
      while (i < s->unit_end) {
        const plan::WorkUnit& first = p.units[i];
        std::size_t e = i;
        double core_seconds = 0;
        while (e < s->unit_end && e - i < kBatchUnits && p.units[e].stage == first.stage &&
               p.units[e].side == first.side && (e == i || core_seconds < kBatchCoreSeconds * device->parallelism())) {
          core_seconds += p.units[e].ops / plan::throughput(first.stage, plan::DeviceKind::cpu_core);
          ++e;
        }
        store::StageRows rows;
        device->run({first.stage, &p.units[i], e - i}, in, params, rows);
        if (!rows.nussinov_queries.empty()) writer.append_nussinov(store::Side::query, rows.nussinov_queries);
        if (!rows.nussinov_targets.empty()) writer.append_nussinov(store::Side::target, rows.nussinov_targets);
        if (!rows.miranda_hits.empty()) writer.append(rows.miranda_hits);
        if (!rows.miranda_pairs.empty()) writer.append(rows.miranda_pairs);
        if (!rows.bpmax_scores.empty()) writer.append(rows.bpmax_scores);
        if (!rows.bpmax_structures.empty()) writer.append(rows.bpmax_structures);
        units_done += e - i;
        i = e;
        progress.update(units_done);
        if (options.stop && options.stop->load()) stopped(options.stop->load());  // abandons the part
      }
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      writer.set_timing(wall, device->name(), host);
      const std::string checksum = writer.commit();
      record({s->id, part_name(s->id), checksum});
      append_timing(output, {s->id, s->units(),
                             std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(),
                             wall, device->name(), host});
      done.insert(s->id);
      sum.ran.push_back(s->id);
      sum.units_ran += s->units();
      spdlog::debug("shard {} done: {} units in {:.2f} s", s->id, s->units(), wall);
    }
    progress.finish();
  }

  const std::string results = results_path(output);
  if (!options.shard && done.size() == p.shards.size() &&
      (!sum.ran.empty() || !sum.recomputed.empty() || !fs::exists(results))) {
    store::merge_results(merge_spec(job, in, p, output, options.command_line), results);
    sum.merged = true;
    spdlog::info("{}: results in {}", job.name, results);
  }
  if (fs::exists(results) && done.size() == p.shards.size()) sum.results = results;
  return sum;
}

std::string merge_output(const manifest::Job& job, const std::string& command_line) {
  const std::string output = job.output;
  store::OutputLock lock(output);
  RunState old;
  if (!read_run_state(output, old)) throw InputError(fmt::format("{}: no run.info; is this a job's output?", output));
  const Inputs in = load_inputs(job);
  const plan::Plan p =
      plan::make_plan(job, in.query_lengths(), in.target_lengths(), static_cast<int>(old.shards.size()));
  const std::string diff = differences(old, current_state(job, in, p));
  if (!diff.empty()) throw ConflictError(fmt::format("{}: cannot merge: {}", output, diff));
  const auto checks = check_shards(output, p, job.manifest_sha256, in.input_sha256());
  std::vector<std::string> missing;
  for (const auto& s : p.shards) {
    auto it = checks.find(s.id);
    if (it == checks.end())
      missing.push_back(fmt::format("{} (not run)", s.id));
    else if (!it->second.done)
      missing.push_back(fmt::format("{} ({})", s.id, it->second.reason));
  }
  if (!missing.empty()) {
    std::string text;
    for (const auto& m : missing) text += (text.empty() ? "" : ", ") + m;
    throw ConflictError(fmt::format("{}: cannot merge, shards not complete: {}; run `screen run` first", output, text));
  }
  const std::string results = results_path(output);
  store::merge_results(merge_spec(job, in, p, output, command_line), results);
  return results;
}

StatusReport job_status(const std::string& output) {
  RunState s;
  if (!read_run_state(output, s)) throw InputError(fmt::format("{}: no run.info; is this a job's output?", output));
  StatusReport r;
  r.manifest_path = s.manifest_path;
  r.shards_total = s.shards.size();
  r.units_total = s.units;
  std::set<std::int64_t> done;
  for (const auto& e : store::read_journal(journal_path(output)).entries)
    if (fs::exists(output + "/" + e.part_file)) done.insert(e.shard_id);
  std::map<std::int64_t, TimingEntry> timing;
  for (const auto& t : read_timing(output)) timing[t.shard_id] = t;
  double est_done = 0, est_left = 0;
  std::uint64_t timed_units = 0;
  for (const auto& sh : s.shards) {
    if (done.count(sh.id)) {
      ++r.shards_done;
      r.units_done += sh.units();
      auto it = timing.find(sh.id);
      if (it != timing.end()) {
        r.wall_seconds += it->second.wall_seconds;
        est_done += sh.cpu_core_seconds;
        timed_units += sh.units();
      }
    } else {
      est_left += sh.cpu_core_seconds;
      r.pending.push_back(sh.id);
    }
  }
  if (r.wall_seconds > 0) {
    r.units_per_second = static_cast<double>(timed_units) / r.wall_seconds;
    if (est_done > 0) r.eta_seconds = est_left * (r.wall_seconds / est_done);
  }
  if (r.pending.empty()) r.eta_seconds = 0;
  r.results_present = fs::exists(results_path(output));
  return r;
}

}  // namespace screen::engine
