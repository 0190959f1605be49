#pragma once
// Per-shard state of an output folder for `screen status`: done (the journal names a part that
// exists), running, pending or failed, with the SLURM job of the latest submission where known.
//
// Evidence, best first: the journal (done); squeue (a task queued → pending, running → running);
// sacct (a finished task that failed, was cancelled, timed out ... → failed); a shard lock held on
// this machine (running: a `screen run --shard K` here, or any run when SLURM is not in use);
// a task of the latest array no longer in the queue while its shard is not done → failed.
// Without squeue (or sacct) the other evidence is used and `queue_note` says why.
#include <cstdint>
#include <string>
#include <vector>

#include "cluster/jobs_log.hpp"
#include "engine/engine.hpp"

namespace screen::cluster {

enum class ShardState { pending, running, done, failed };
const char* shard_state_name(ShardState s);

struct ShardStatus {
  std::int64_t id = 0;
  ShardState state = ShardState::pending;
  std::string slurm_job;    // "1234_5" when a submission covers this shard
  std::string slurm_state;  // what squeue / sacct said (RUNNING, CANCELLED, ...), else empty
};

struct ClusterStatus {
  std::vector<ShardStatus> shards;
  std::vector<Submission> submissions;  // jobs.tsv
  std::string merge_job, merge_state;   // the latest submission's merge job and its state when known
  std::string queue_note;               // why squeue / sacct could not be used ("" when they were)
  std::size_t count(ShardState s) const;
};

// `report` is engine::job_status(output) (shard count and the shards not done).
ClusterStatus shard_states(const std::string& output, const engine::StatusReport& report);

}  // namespace screen::cluster
