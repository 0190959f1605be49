// `screen merge` (merge_output) and `screen status` (job_status).
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "common/error.hpp"
#include "engine/engine.hpp"
#include "engine/folder.hpp"
#include "engine/results_spec.hpp"
#include "engine/run_state.hpp"
#include "store/checkpoint.hpp"
#include "store/journal.hpp"
#include "store/lock.hpp"
#include "store/merge.hpp"

namespace screen::engine {

namespace fs = std::filesystem;

std::string merge_output(const manifest::Job& job, const std::string& command_line) {
  const std::string output = job.output;
  store::OutputLock lock(output);
  RunState old;
  if (!read_run_state(output, old)) throw InputError(fmt::format("{}: no run.info; is this a job's output?", output));
  const Inputs in = load_inputs(job);
  const plan::Plan p =
      plan::make_plan(job, in.query_lengths(), in.target_lengths(), static_cast<int>(old.shards.size()),
                      in.target_both_strands);
  const std::string diff = differences(old, current_state(job, in, p));
  if (!diff.empty()) throw ConflictError(fmt::format("{}: cannot merge: {}", output, diff));
  const auto checks = check_shards(output, p, job.results_sha256, in.input_sha256());
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

namespace {

// The units of shard `sh` that its checkpoint chain covers: segments 0, 1, ... while each starts where
// the one before ended (from the shard's first unit).
std::uint64_t checkpointed_units(const std::string& output, const plan::Shard& sh) {
  std::uint64_t next = sh.unit_begin;
  std::uint64_t expected_sequence = 0;
  for (const auto& [sequence, path] : list_checkpoints(output, sh.id)) {
    std::uint64_t seq = 0, from = 0, to = 0;
    if (sequence != expected_sequence || !store::read_checkpoint_span(path, seq, from, to) || seq != sequence ||
        from != next || to <= from || to > sh.unit_end)
      break;
    next = to;
    ++expected_sequence;
  }
  return next - sh.unit_begin;
}

}  // namespace

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
      r.units_checkpointed += checkpointed_units(output, sh);
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
