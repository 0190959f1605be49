#include "engine/engine.hpp"

#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/error.hpp"
#include "engine/device_set.hpp"
#include "engine/folder.hpp"
#include "engine/results_spec.hpp"
#include "engine/run_profile.hpp"
#include "engine/run_state.hpp"
#include "engine/scheduler.hpp"
#include "engine/shard_lock.hpp"
#include "plan/stage_params.hpp"
#include "store/journal.hpp"
#include "store/lock.hpp"
#include "store/merge.hpp"

namespace screen::engine {

namespace fs = std::filesystem;

namespace {

void log_skipped(const Inputs& in, const plan::Plan& p) {
  for (const auto& s : in.skipped)
    spdlog::warn("{} set {}: record '{}' skipped: {}", s.side, s.set, s.name, s.reason);
  const auto units = skipped_unit_rows(p, in);
  constexpr std::size_t kShown = 20;
  for (std::size_t k = 0; k < units.size() && k < kShown; ++k)
    spdlog::warn("{} {} skipped: {}", units[k].side == "pair" ? "pair" : units[k].side + " record", units[k].name,
                 units[k].reason);
  if (units.size() > kShown)
    spdlog::warn("... and {} more work units skipped (`screen plan` and /skipped list them all)", units.size() - kShown);
}

// The shards to run: those not done (or exactly --shard K when not done).
std::vector<const plan::Shard*> shards_to_run(const plan::Plan& p, const std::set<std::int64_t>& done,
                                              const std::optional<std::int64_t>& only) {
  std::vector<const plan::Shard*> todo;
  if (only) {
    const std::int64_t k = *only;
    if (k < 0 || k >= static_cast<std::int64_t>(p.shards.size()))
      throw UsageError(fmt::format("--shard {}: the plan has shards 0..{}", k, p.shards.size() - 1));
    if (done.count(k))
      spdlog::info("shard {} is already complete", k);
    else
      todo.push_back(&p.shards[static_cast<std::size_t>(k)]);
    return todo;
  }
  for (const auto& s : p.shards)
    if (!done.count(s.id)) todo.push_back(&s);
  return todo;
}

}  // namespace

RunSummary run_job(const manifest::Job& job, const RunOptions& options) {
  const std::string output = job.output;
  if (options.shard && options.restart)
    throw UsageError("--restart starts the whole job over and cannot be combined with --shard");
  // Inputs and plan first: a job whose inputs are refused leaves no output folder behind.
  const Inputs in = load_inputs(job);
  const plan::Plan p = plan::make_plan(job, in.query_lengths(), in.target_lengths(), options.shards, in.target_both_strands);
  log_skipped(in, p);
  require_work(p);

  {
    std::error_code ec;
    fs::create_directories(output, ec);
    if (ec) throw ResourceError(fmt::format("{}: cannot create the output folder: {}", output, ec.message()));
  }
  // A full run holds the folder alone; --shard tasks share it, each holding its shard (shard_lock.hpp).
  std::optional<store::OutputLock> lock;
  std::optional<ShardLock> shard_lock;
  if (options.shard)
    shard_lock.emplace(output, *options.shard);
  else
    lock.emplace(output);
  remove_stale_temporaries(output, options.shard);
  const plan::StageParams params = plan::stage_params(job);
  const RunState now = current_state(job, in, p);
  const std::vector<std::string> input_sha = in.input_sha256();

  RunState old;
  // --restart discards the old state unread: it is also the way out of a damaged run.info.
  const bool have_old = !options.restart && read_run_state(output, old);
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
  sum.units_skipped = p.skipped.size();
  std::set<std::int64_t> done;
  for (const auto& [id, c] : check_shards(output, p, job.results_sha256, input_sha)) {
    if (c.done) {
      done.insert(id);
      sum.reused.push_back(id);
      // A run killed between the journal line and the removal of the shard's checkpoints.
      if (!options.shard || *options.shard == id) remove_checkpoints(output, id);
    } else {
      spdlog::warn("shard {}: recorded part not trusted ({}); recomputing it", id, c.reason);
      sum.recomputed.push_back(id);
    }
  }

  const std::vector<const plan::Shard*> todo = shards_to_run(p, done, options.shard);
  std::uint64_t todo_units = 0;
  for (const auto* s : todo) todo_units += s->units();
  spdlog::info("{}: {} shards, {} units{}; {} complete, {} to run ({} units)", job.name, p.shards.size(),
               p.units.size(), p.skipped.empty() ? "" : fmt::format(" ({} skipped)", p.skipped.size()), done.size(),
               todo.size(), todo_units);

  if (!todo.empty()) {
    const int threads = options.threads > 0 ? options.threads : job.resources.cpu_threads;
    const std::vector<std::shared_ptr<Device>> workers =
        options.devices.empty() ? make_workers(job.resources, threads) : options.devices;
    for (const auto& w : workers) {
      spdlog::info("worker: {}", w->name());
      sum.workers.push_back(w->name());
    }
    // A full run appends through one Journal; a --shard task opens it for each line under the
    // journal lock, as other tasks append to the same file.
    std::unique_ptr<store::Journal> journal;
    if (!options.shard) journal = std::make_unique<store::Journal>(journal_path(output));
    const std::string host = store::host_name();
    auto record = [&](const store::JournalEntry& e, double wall, const std::string& device) {
      if (journal) {
        journal->record(e);
      } else {
        FileLock held(journal_lock_path(output), FileLock::Mode::exclusive, true);
        store::Journal(journal_path(output)).record(e);
      }
      const auto& s = p.shards[static_cast<std::size_t>(e.shard_id)];
      append_timing(output, {e.shard_id, s.units(),
                             std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(),
                             wall, device, host});
      done.insert(e.shard_id);
    };
    std::mutex store_mutex;
    ShardContext ctx;
    ctx.inputs = &in;
    ctx.plan = &p;
    ctx.params = &params;
    ctx.output = output;
    ctx.results_sha256 = job.results_sha256;
    ctx.input_sha256 = input_sha;
    ctx.stages = job.stage_order;
    ctx.host = host;
    ctx.checkpoint_every = job.checkpoint.every_seconds;
    ctx.store_mutex = &store_mutex;
    RunProfile profile;
    ctx.profile = &profile;
    ctx.profile_file = profile_path(output, options.shard.has_value(), options.shard.value_or(0));
    ScheduleResult r;
    try {
      r = run_shards(ctx, todo, workers, record, options.stop, options.progress_interval);
    } catch (...) {
      save_profile(ctx.profile_file, profile.table("stopped"));
      throw;
    }
    sum.profile = profile.table("finished");
    save_profile(ctx.profile_file, sum.profile);
    sum.ran = r.ran;
    sum.devices = r.devices;
    sum.units_ran = r.units_computed;
    sum.units_resumed = r.units_resumed;
    sum.checkpoints = r.checkpoints;
  }

  const std::string results = results_path(output);
  if (!options.shard && done.size() == p.shards.size() &&
      (!sum.ran.empty() || !sum.recomputed.empty() || !fs::exists(results))) {
    const auto m0 = std::chrono::steady_clock::now();
    store::merge_results(merge_spec(job, in, p, output, options.command_line), results);
    spdlog::debug("{}: merged the parts in {:.2f} s", job.name,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - m0).count());
    sum.merged = true;
    spdlog::info("{}: results in {}", job.name, results);
  }
  if (fs::exists(results) && done.size() == p.shards.size()) sum.results = results;
  return sum;
}

}  // namespace screen::engine
