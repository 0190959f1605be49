// `screen status OUTPUT`: shards and units done, throughput and ETA of a job's output folder, from
// run.info, the journal and the timing log (lib/engine/engine.hpp, job_status); then each shard's
// state (pending, running, done, failed) with its SLURM job where `screen submit` recorded one
// (lib/cluster/shard_states.hpp: squeue and sacct when available, else the shard locks).
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "apps/screen/cli.hpp"
#include "cluster/shard_states.hpp"
#include "common/progress.hpp"
#include "engine/engine.hpp"
#include "engine/run_profile.hpp"

namespace screen::cli {

namespace {

void print_shard_states(const cluster::ClusterStatus& cs) {
  using cluster::ShardState;
  if (!cs.submissions.empty()) {
    const auto& s = cs.submissions.back();
    fmt::print("slurm:    array job {} ({} tasks), merge job {}{}; submitted {}{}\n", s.array_job, s.shards,
               s.merge_job, cs.merge_state.empty() ? "" : " " + cs.merge_state, s.time,
               cs.submissions.size() > 1 ? fmt::format(" ({} submissions)", cs.submissions.size()) : "");
    if (!cs.queue_note.empty()) fmt::print("queue:    {}\n", cs.queue_note);
  }
  fmt::print("states:   {} done, {} running, {} pending, {} failed\n", cs.count(ShardState::done),
             cs.count(ShardState::running), cs.count(ShardState::pending), cs.count(ShardState::failed));
  fmt::print("shard\tstate\tslurm_job\tslurm_state\n");
  for (const auto& s : cs.shards)
    fmt::print("{}\t{}\t{}\t{}\n", s.id, cluster::shard_state_name(s.state), s.slurm_job.empty() ? "-" : s.slurm_job,
               s.slurm_state.empty() ? "-" : s.slurm_state);
}

int run_status(const std::string& output) {
  const engine::StatusReport r = engine::job_status(output);
  fmt::print("output:   {}\nmanifest: {}\n", output, r.manifest_path);
  fmt::print("shards:   {}/{} done\n", r.shards_done, r.shards_total);
  fmt::print("units:    {}/{} done ({:.1f}%)", r.units_done, r.units_total,
             r.units_total ? 100.0 * static_cast<double>(r.units_done) / static_cast<double>(r.units_total) : 100.0);
  if (r.units_checkpointed > 0) fmt::print(", {} more in checkpoints of unfinished shards", r.units_checkpointed);
  fmt::print("\n");
  if (r.units_per_second > 0)
    fmt::print("rate:     {:.1f} units/s over {} of shard time\n", r.units_per_second, human_duration(r.wall_seconds));
  if (!r.pending.empty()) {
    fmt::print("eta:      {}\n", r.eta_seconds >= 0 ? human_duration(r.eta_seconds) : std::string("unknown"));
    std::string ids;
    for (std::size_t i = 0; i < r.pending.size() && i < 20; ++i) ids += (i ? " " : "") + std::to_string(r.pending[i]);
    fmt::print("pending:  {}{}\n", ids, r.pending.size() > 20 ? " ..." : "");
  }
  fmt::print("results:  {}\n", r.results_present ? output + "/results.h5" : std::string("not merged yet"));
  // Where the latest run's time went (saved every few seconds while it runs).
  fmt::print("{}", engine::format_profile(engine::read_profiles(output)));
  print_shard_states(cluster::shard_states(output, r));
  return 0;
}

}  // namespace

void add_status(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("status", "Show the progress of a job's output directory, shard by shard");
  auto out = std::make_shared<std::string>();
  cmd->add_option("output", *out, "The job's output folder")->required();
  cmd->callback([&action, out] { action = [out]() -> int { return run_status(*out); }; });
}

}  // namespace screen::cli
