#include "cluster/sbatch_script.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "cluster/shell_quote.hpp"

namespace screen::cluster {

namespace fs = std::filesystem;

namespace {

std::string absolute(const std::string& p) { return fs::absolute(p).lexically_normal().string(); }

void option(std::string& text, const std::string& name, const std::string& value) {
  text += fmt::format("#SBATCH --{}={}\n", name, shell_quote(value));
}

// The options both scripts share, after their own: time, partition, extra options as written.
void common_options(std::string& text, const ScriptSpec& s) {
  option(text, "time", s.cluster.time_limit);
  if (!s.cluster.partition.empty()) option(text, "partition", s.cluster.partition);
}

void extra_options(std::string& text, const ScriptSpec& s) {
  for (const auto& x : s.cluster.extra_sbatch) text += "#SBATCH " + x + "\n";
}

}  // namespace

ScriptSpec script_spec(const manifest::Job& job, std::int64_t shards, const std::string& screen_exe) {
  ScriptSpec s;
  s.job_name = job.name;
  s.manifest = absolute(job.manifest_path);
  s.output = absolute(job.output);
  s.screen_exe = screen_exe;
  s.shards = shards;
  s.cluster = job.cluster;
  s.use_gpus = job.resources.devices != manifest::DeviceMode::cpu;
  s.cpu_threads = job.resources.cpu_threads;
  return s;
}

std::string slurm_dir(const std::string& output) { return output + "/slurm"; }
std::string array_script_path(const std::string& output) { return slurm_dir(output) + "/array.sbatch"; }
std::string merge_script_path(const std::string& output) { return slurm_dir(output) + "/merge.sbatch"; }
std::string logs_dir(const std::string& output) { return slurm_dir(output) + "/logs"; }

std::string array_script(const ScriptSpec& s) {
  std::string t = "#!/bin/bash\n";
  t += fmt::format("# screen job {}: one array task per shard (0-{}), each running `screen run --shard env`.\n",
                   s.job_name, s.shards - 1);
  t += "# Written by `screen submit`; a requeued or repeated task resumes or skips its shard.\n";
  option(t, "job-name", "screen-" + s.job_name);
  std::string range = fmt::format("0-{}", s.shards - 1);
  if (s.cluster.max_concurrent > 0) range += fmt::format("%{}", s.cluster.max_concurrent);
  option(t, "array", range);
  common_options(t, s);
  if (s.use_gpus && s.cluster.gpus_per_task > 0) option(t, "gres", fmt::format("gpu:{}", s.cluster.gpus_per_task));
  if (s.cpu_threads > 0) option(t, "cpus-per-task", std::to_string(s.cpu_threads));
  t += "#SBATCH --requeue\n";
  option(t, "open-mode", "append");
  option(t, "output", logs_dir(s.output) + "/%A_%a.out");
  option(t, "error", logs_dir(s.output) + "/%A_%a.err");
  extra_options(t, s);
  t += fmt::format("exec {} run {} --shard env\n", shell_quote(s.screen_exe), shell_quote(s.manifest));
  return t;
}

std::string merge_script(const ScriptSpec& s) {
  std::string t = "#!/bin/bash\n";
  t += fmt::format("# screen job {}: merges the {} shards' parts into results.h5 once every array task succeeded.\n",
                   s.job_name, s.shards);
  t += "# Written by `screen submit`; submitted with --dependency=afterok:<array job id>.\n";
  option(t, "job-name", "screen-" + s.job_name + "-merge");
  common_options(t, s);
  option(t, "output", logs_dir(s.output) + "/merge-%j.out");
  option(t, "error", logs_dir(s.output) + "/merge-%j.err");
  extra_options(t, s);
  t += fmt::format("exec {} merge {}\n", shell_quote(s.screen_exe), shell_quote(s.output));
  return t;
}

std::vector<std::string> array_submit_command(const std::string& script) { return {"sbatch", "--parsable", script}; }

std::vector<std::string> merge_submit_command(const std::string& script, const std::string& array_job_id) {
  return {"sbatch", "--parsable", "--dependency=afterok:" + array_job_id, script};
}

std::string command_text(const std::vector<std::string>& argv) {
  std::string t;
  for (const auto& a : argv) t += (t.empty() ? "" : " ") + shell_quote(a);
  return t;
}

}  // namespace screen::cluster
