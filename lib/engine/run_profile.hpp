#pragma once
// The run profile: where the time of a `screen run` went, per worker and stage, so that a user sees
// which stage and which device bound the run. The workers add each batch as it ends; the profile is
// saved to <output>/profile.tsv (or profile.shard-NNNNNN.tsv for `--shard K`) every few seconds and
// at the end (temporary name, rename), printed as a table when the run ends, and shown by
// `screen status` (all profile files of the folder summed). The format is in docs/results.md.
//
// Per (worker, stage): units, batches, busy (wall seconds inside the device's batch calls), of which
// gpu (device time of kernels and copies: CUDA events where the stage records them, else the wall time
// of its synchronous GPU sections) and traceback (host tracebacks), host = busy - gpu - traceback
// (post-processing, row building, CPU work, and waiting for a host task); overlap (host tasks that ran
// beside the device's next batch, e.g. BPMax tracebacks: not part of busy); write (seconds writing
// rows and checkpoints, waiting for the store included). Per worker: wait = the run's wall time - busy - write (no work to take, or
// waiting for the store).
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "plan/plan.hpp"

namespace screen::engine {

struct ProfileCell {
  std::uint64_t units = 0, batches = 0;
  double busy = 0, gpu = 0, traceback = 0, write = 0;
  double overlap = 0;  // host tasks run beside the device's next batch (not in busy)
  double host() const { return busy - gpu - traceback; }
  void add(const ProfileCell& o);
};

struct ProfileRow {
  std::string worker;
  std::string stage;  // nussinov | miranda | bpmax, or "all" (the worker's total, with wait)
  ProfileCell cell;
  double wait = 0;    // "all" rows only
};

// A profile as saved: its rows and the run's wall time.
struct ProfileTable {
  double wall_seconds = 0;
  std::string state;  // running | finished | stopped
  std::vector<ProfileRow> rows;
};

class RunProfile {
 public:
  RunProfile();

  // A batch of `stage` on `worker`: its units, wall seconds and what the stage code reported.
  void add_batch(const std::string& worker, plan::StageKind stage, std::uint64_t units, double busy, double gpu,
                 double traceback);
  void add_write(const std::string& worker, plan::StageKind stage, double seconds);
  // A batch's host task (Device::start): `seconds` of work beside the device, of which the worker
  // waited `waited` at the end (counted as busy host time).
  void add_host_task(const std::string& worker, plan::StageKind stage, double seconds, double waited);
  // Workers that take part, even if they never get a batch (their whole time is wait).
  void add_worker(const std::string& worker);

  // Rows per (worker, stage) in worker order then stage order, then each worker's "all" row.
  ProfileTable table(const std::string& state) const;
  double wall_seconds() const;

 private:
  mutable std::mutex mutex_;
  double start_;  // steady clock, seconds
  std::vector<std::string> workers_;
  std::map<std::pair<std::string, int>, ProfileCell> cells_;
};

std::string profile_path(const std::string& output, bool shard_run, std::int64_t shard);

// Writes the table (temporary name, rename; a failure is logged, not thrown: the profile never
// stops a run).
void save_profile(const std::string& path, const ProfileTable& t);

// Every profile*.tsv of the folder, summed by (worker, stage); wall: the largest. Empty rows when
// there is none. Unreadable lines are skipped.
ProfileTable read_profiles(const std::string& output);

// The table for people: one line per row, seconds and shares of the wall time, GPU busy share.
std::string format_profile(const ProfileTable& t);

}  // namespace screen::engine
