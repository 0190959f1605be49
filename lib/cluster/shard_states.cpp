#include "cluster/shard_states.hpp"

#include <map>
#include <set>

#include <fmt/format.h>

#include "cluster/lock_probe.hpp"
#include "cluster/slurm.hpp"
#include "engine/shard_lock.hpp"

namespace screen::cluster {

namespace {

bool is_active(const std::string& state) {
  return state == "RUNNING" || state == "COMPLETING" || state == "CONFIGURING" || state == "STAGE_OUT" ||
         state == "SIGNALING" || state == "RESIZING";
}

bool is_failure(const std::string& state) {
  return state == "FAILED" || state == "CANCELLED" || state == "TIMEOUT" || state == "OUT_OF_MEMORY" ||
         state == "NODE_FAIL" || state == "BOOT_FAIL" || state == "DEADLINE" || state == "PREEMPTED";
}

}  // namespace

const char* shard_state_name(ShardState s) {
  switch (s) {
    case ShardState::pending: return "pending";
    case ShardState::running: return "running";
    case ShardState::done: return "done";
    case ShardState::failed: return "failed";
  }
  return "?";
}

std::size_t ClusterStatus::count(ShardState s) const {
  std::size_t n = 0;
  for (const auto& x : shards) n += x.state == s;
  return n;
}

ClusterStatus shard_states(const std::string& output, const engine::StatusReport& report) {
  ClusterStatus cs;
  cs.submissions = read_jobs_log(output);
  const Submission* latest = cs.submissions.empty() ? nullptr : &cs.submissions.back();

  std::map<long long, QueueEntry> queued, accounted;  // by array task of the latest array job
  bool have_queue = false;
  if (latest) {
    cs.merge_job = latest->merge_job;
    std::vector<QueueEntry> entries;
    std::string why;
    have_queue = squeue_jobs({latest->array_job, latest->merge_job}, entries, why);
    if (!have_queue) cs.queue_note = why;
    for (const auto& e : entries) {
      if (e.job_id == latest->array_job && e.task >= 0) queued[e.task] = e;
      if (e.job_id == latest->merge_job)
        cs.merge_state = e.reason.empty() || e.reason == "None" ? e.state : e.state + " (" + e.reason + ")";
    }
    std::string sacct_why;
    if (sacct_jobs({latest->array_job, latest->merge_job}, entries, sacct_why)) {
      for (const auto& e : entries) {
        if (e.job_id == latest->array_job && e.task >= 0) accounted[e.task] = e;
        if (e.job_id == latest->merge_job && cs.merge_state.empty()) cs.merge_state = e.state;
      }
    } else if (cs.queue_note.empty()) {
      cs.queue_note = sacct_why;
    }
  }

  const std::set<std::int64_t> pending(report.pending.begin(), report.pending.end());
  for (std::int64_t id = 0; id < static_cast<std::int64_t>(report.shards_total); ++id) {
    ShardStatus s;
    s.id = id;
    const bool covered = latest && id < latest->shards;
    if (covered) s.slurm_job = fmt::format("{}_{}", latest->array_job, id);
    auto q = queued.find(id);
    auto a = accounted.find(id);
    if (q != queued.end()) s.slurm_state = q->second.state;
    else if (a != accounted.end()) s.slurm_state = a->second.state;

    if (!pending.count(id)) {
      s.state = ShardState::done;
    } else if ((q != queued.end() && is_active(q->second.state)) ||
               probe_lock(engine::shard_lock_path(output, id)) == LockProbe::held) {
      s.state = ShardState::running;
    } else if (q != queued.end()) {
      s.state = ShardState::pending;  // queued, held, requeued, suspended
    } else if (a != accounted.end() && (is_failure(a->second.state) || a->second.state == "COMPLETED")) {
      s.state = ShardState::failed;   // finished (even "successfully") without completing the shard
    } else if (covered && have_queue) {
      s.state = ShardState::failed;   // the task left the queue without completing the shard
      if (s.slurm_state.empty()) s.slurm_state = "not in queue";
    } else {
      s.state = ShardState::pending;
    }
    cs.shards.push_back(s);
  }
  return cs;
}

}  // namespace screen::cluster
