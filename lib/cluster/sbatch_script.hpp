#pragma once
// The two batch scripts of `screen submit`, rendered from a job's `cluster` section
// (docs/manifest.md): the array script, one task per shard, each running
// `screen run MANIFEST --shard env`; and the merge script, `screen merge OUTPUT`, submitted with
// a dependency on the whole array. workflows/slurm/ holds examples rendered by this code.
#include <cstdint>
#include <string>
#include <vector>

#include "manifest/job.hpp"

namespace screen::cluster {

struct ScriptSpec {
  std::string job_name;    // the manifest's job name
  std::string manifest;    // absolute path of the manifest
  std::string output;      // absolute path of the output folder
  std::string screen_exe;  // absolute path of the screen executable the tasks run
  std::int64_t shards = 1;
  manifest::Cluster cluster;
  bool use_gpus = true;    // false when resources.devices is cpu: no --gres whatever gpus_per_task says
  int cpu_threads = 0;     // resources.cpu_threads; > 0 gives --cpus-per-task
};

// From a loaded job: absolute manifest and output paths, its cluster and resources sections.
ScriptSpec script_spec(const manifest::Job& job, std::int64_t shards, const std::string& screen_exe);

// <output>/slurm, its scripts and the logs folder.
std::string slurm_dir(const std::string& output);
std::string array_script_path(const std::string& output);
std::string merge_script_path(const std::string& output);
std::string logs_dir(const std::string& output);

// The array script:
//   #SBATCH --array=0-(N-1)[%max_concurrent], --time, --partition (when set), --gres=gpu:G (when
//   G > 0 and GPUs are used), --cpus-per-task (when resources.cpu_threads > 0), --requeue,
//   --open-mode=append, --output/--error <output>/slurm/logs/%A_%a.{out,err} (a '%' of the folder
//   doubled), then every extra_sbatch option, rebuilt from its parsed form; the body execs
//   `screen run MANIFEST --shard env`. #SBATCH values are quoted for sbatch (sbatch_quote.hpp), the
//   exec line for bash (shell_quote.hpp).
// Both scripts check every value they write first: a control character (a newline would end a line
// early and start a directive or command of its own) or an invalid cluster value throws
// ManifestError (a manifest value: its field named) or UsageError (the manifest path given on the
// command line, the screen executable's path).
std::string array_script(const ScriptSpec& s);
// The merge script: the same time, partition and extra options, no GPUs, logs merge-%j.{out,err};
// the body execs `screen merge OUTPUT`.
std::string merge_script(const ScriptSpec& s);

// The sbatch command lines of a submission ("ARRAY_JOB_ID" stands for the id sbatch returns
// when the merge command is shown before the array is submitted).
std::vector<std::string> array_submit_command(const std::string& script);
std::vector<std::string> merge_submit_command(const std::string& script, const std::string& array_job_id);

// "sbatch --parsable '/a b/x.sbatch'": a command as a shell would take it.
std::string command_text(const std::vector<std::string>& argv);

}  // namespace screen::cluster
