#pragma once
// The engine: runs a job on this machine.
//
// run_job takes the output folder's lock, reads the inputs, makes the plan, and compares it with
// run.info from an earlier run (a changed manifest, input or plan is refused with ConflictError
// unless `restart`, which clears the folder's parts, journal and results first). It then trusts the
// shards whose journal line names a part that verifies (complete, checksum equal to the content and
// to the journal's, same manifest and inputs); every other shard is (re)computed on the device in
// batches, written to its part file (PartWriter: temporary name, fsync, rename) and recorded in the
// journal after the rename. When every shard is complete it merges the parts into results.h5.
//
// Locking: a full run (and merge_output) holds store::OutputLock; with options.shard the run takes
// a shared lock on the folder and an exclusive one on the shard instead (shard_lock.hpp), so array
// tasks run different shards of one folder at once; `restart` cannot be combined with `shard`.
//
// Interruption: when *stop becomes nonzero (the CLI's SIGINT/SIGTERM handler stores the signal
// number) the current shard is abandoned at the next batch boundary (its temporary part removed,
// nothing recorded) and run_job throws Error(interrupted) (SIGINT) or Error(terminated) (other
// signals); the folder is then as a resume expects it.
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/inputs.hpp"
#include "manifest/job.hpp"
#include "plan/plan.hpp"

namespace screen::engine {

struct RunOptions {
  bool restart = false;                   // start over when the folder holds another run's state
  std::optional<std::int64_t> shard;      // run exactly this shard (if not done) and do not merge
  int threads = 0;                        // CPU threads; 0: resources.cpu_threads, else all cores
  int shards = 0;                         // shard count override (0: the manifest's)
  const std::atomic<int>* stop = nullptr; // nonzero: stop at the next safe point (value: the signal)
  std::string command_line;               // recorded in results.h5
  double progress_interval = 5.0;         // seconds between progress lines
};

struct RunSummary {
  std::size_t shards_total = 0;
  std::vector<std::int64_t> reused;      // verified parts kept
  std::vector<std::int64_t> recomputed;  // journal named a part that did not verify
  std::vector<std::int64_t> ran;         // shards computed by this call, in order
  std::uint64_t units_total = 0, units_ran = 0;
  bool merged = false;
  std::string results;                   // results.h5 path when merged
};

RunSummary run_job(const manifest::Job& job, const RunOptions& options);

// Re-merges results.h5 from the verified parts of a finished run (`screen merge`). Takes the lock.
// Throws ConflictError when a shard is missing or its part does not verify, naming the shards.
std::string merge_output(const manifest::Job& job, const std::string& command_line);

// `screen status`: from run.info, the journal and the timing log; does not read the inputs.
struct StatusReport {
  std::string manifest_path;
  std::size_t shards_total = 0, shards_done = 0;
  std::uint64_t units_total = 0, units_done = 0;
  double wall_seconds = 0;        // of the shards done (timing log)
  double units_per_second = 0;    // 0 when unknown
  double eta_seconds = -1;        // < 0 when unknown
  bool results_present = false;
  std::vector<std::int64_t> pending;  // shards not done
};
StatusReport job_status(const std::string& output);

// The part file of shard `id`: "part-000042.h5".
std::string part_name(std::int64_t id);

}  // namespace screen::engine
