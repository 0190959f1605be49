#pragma once
// `screen submit`: plans the job, prepares its output folder for array tasks (run.info, as the
// first `screen run` would write it, so `screen status` knows the shards before any task starts),
// writes <output>/slurm/array.sbatch and merge.sbatch, and submits them: the array with sbatch,
// then the merge job with --dependency=afterok:<array job>; both ids go to slurm/jobs.tsv.
//
// A resubmission (after a cancelled, failed or timed-out task) submits the whole array again:
// tasks of complete shards skip them and exit 0. It is refused (ConflictError) while a task of an
// earlier array of this folder is still queued or running; an earlier merge job still waiting on
// an array that is gone (its dependency can never be met) is cancelled.
#include <cstdint>
#include <string>
#include <vector>

#include "manifest/job.hpp"

namespace screen::cluster {

struct SubmitOptions {
  bool dry_run = false;    // write the scripts only: no run.info, no sbatch
  std::string screen_exe;  // absolute path of the screen executable the scripts run
};

struct SubmitResult {
  std::int64_t shards = 0;
  std::string output;                      // absolute
  std::string array_script, merge_script;  // paths
  std::string array_text, merge_text;      // their contents
  std::vector<std::string> array_command, merge_command;  // merge's names ARRAY_JOB_ID when dry
  std::string array_job, merge_job;        // empty when dry
  std::vector<std::string> notes;          // what was done besides (a stale merge job cancelled)
};

// ManifestError when the job has no cluster section; ConflictError when the folder holds another
// run's state (the manifest, inputs or plan changed) or a full run holds it; ResourceError when
// sbatch is missing or fails.
SubmitResult submit_job(const manifest::Job& job, const SubmitOptions& options);

}  // namespace screen::cluster
