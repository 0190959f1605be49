#pragma once
// The engine: runs a job on this machine.
//
// run_job takes the output folder's lock, reads the inputs, makes the plan, and compares it with
// run.info from an earlier run (a changed manifest, input or plan is refused with ConflictError
// unless `restart`, which clears the folder's parts, journal and results first). It then trusts the
// shards whose journal line names a part that verifies (complete, checksum equal to the content and
// to the journal's, same manifest and inputs); every other shard is (re)computed by the workers
// (device_set.hpp: one per GPU plus a CPU pool; scheduler.hpp: a shared queue of shards) in
// batches, written to its part file (PartWriter: temporary name, fsync, rename) and recorded in the
// journal after the rename; long shards save checkpoints inside the shard every checkpoint.every
// and resume from them (shard_assembly.hpp). When every shard is complete it merges the parts into
// results.h5. Work units the plan skips (too large for resources.max_unit_memory) go to /skipped.
//
// Locking: a full run (and merge_output) holds store::OutputLock; with options.shard the run takes
// a shared lock on the folder and an exclusive one on the shard instead (shard_lock.hpp), so array
// tasks run different shards of one folder at once; `restart` cannot be combined with `shard`.
//
// Interruption: when *stop becomes nonzero (the CLI's SIGINT/SIGTERM handler stores the signal
// number) every worker abandons its shard at the next batch boundary (a checkpoint saved, its
// temporary part removed, nothing recorded in the journal) and run_job throws Error(interrupted)
// (SIGINT) or Error(terminated) (other signals); the folder is then as a resume expects it. An error
// in one worker stops the others the same way and is rethrown.
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/device.hpp"
#include "engine/inputs.hpp"
#include "engine/run_profile.hpp"
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
  // The workers' devices; empty: from resources.devices and the thread count (device_set.hpp).
  // Tests give fake devices here.
  std::vector<std::shared_ptr<Device>> devices;
};

struct RunSummary {
  std::size_t shards_total = 0;
  std::vector<std::int64_t> reused;      // verified parts kept
  std::vector<std::int64_t> recomputed;  // journal named a part that did not verify
  std::vector<std::int64_t> ran;         // shards completed by this call, in order of completion
  std::map<std::int64_t, std::string> devices;  // the device that completed each of them
  std::vector<std::string> workers;      // the workers' devices (empty when nothing ran)
  std::uint64_t units_total = 0;         // units of the plan (skipped ones not included)
  std::uint64_t units_skipped = 0;       // units the plan skipped (/skipped)
  ProfileTable profile;                  // where this call's time went (run_profile.hpp); empty: nothing ran
  std::uint64_t units_ran = 0;           // units computed by this call
  std::uint64_t units_resumed = 0;       // units of the shards run taken from checkpoints
  std::uint64_t checkpoints = 0;         // checkpoint segments written by this call
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
  // Units of shards not done that their checkpoint chains hold (from the shard's first unit, segment
  // after segment; read from the segments' attributes, verified only when the shard resumes).
  std::uint64_t units_checkpointed = 0;
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
