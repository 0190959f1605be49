#include "cluster/sbatch_script.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "cluster/sbatch_quote.hpp"
#include "cluster/shell_quote.hpp"
#include "common/error.hpp"
#include "manifest/duration.hpp"
#include "manifest/sbatch_values.hpp"

namespace screen::cluster {

namespace fs = std::filesystem;

namespace {

std::string absolute(const std::string& p) { return fs::absolute(p).lexically_normal().string(); }

// A manifest value that cannot go into the scripts (the manifest reader refuses these already;
// the renderer checks again so that no caller can slip a line break past it).
[[noreturn]] void refuse_manifest_value(const ScriptSpec& s, const std::string& field, const std::string& problem) {
  throw ManifestError(fmt::format("{}: {}: {}; the batch scripts cannot hold it", manifest::printable(s.manifest),
                                  field, problem));
}

// Control characters and sbatch's heterogeneous-job words, for any value on an #SBATCH line.
void check_directive_value(const ScriptSpec& s, const std::string& field, const std::string& value) {
  if (auto c = manifest::control_character(value))
    refuse_manifest_value(s, field, fmt::format("'{}' contains {}", manifest::printable(value), *c));
  if (const std::string problem = manifest::hetjob_word_problem(value); !problem.empty())
    refuse_manifest_value(s, field, problem);
}

// A path from outside the manifest (the command line, the running executable) that reaches the
// exec line: a control character there would end the command early.
void check_path(const std::string& what, const std::string& path, const std::string& remedy) {
  if (auto c = manifest::control_character(path))
    throw UsageError(fmt::format("{} '{}' contains {}; the batch scripts cannot hold it: {}", what,
                                 manifest::printable(path), *c, remedy));
}

bool is_job_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         c == '.';
}

void check_job_name(const ScriptSpec& s) {
  for (const char c : s.job_name)
    if (!is_job_name_char(c))
      refuse_manifest_value(s, "job.name", fmt::format("'{}' may use only letters, digits, '_', '-' and '.'",
                                                       manifest::printable(s.job_name)));
  check_directive_value(s, "job.name", s.job_name);
}

// The output folder goes into --output / --error, where a backslash would turn off SLURM's %A / %a
// / %j replacement, and into the merge command.
void check_output(const ScriptSpec& s) {
  check_directive_value(s, "job.output", s.output);
  if (s.output.find('\\') != std::string::npos)
    refuse_manifest_value(s, "job.output",
                          fmt::format("'{}' contains '\\', which turns off SLURM's %A/%a/%j replacement in --output",
                                      s.output));
}

void check_cluster(const ScriptSpec& s) {
  if (!s.cluster.partition.empty()) {
    if (const std::string problem = manifest::partition_problem(s.cluster.partition); !problem.empty())
      refuse_manifest_value(s, "cluster.partition", problem);
  }
  check_directive_value(s, "cluster.time_limit", s.cluster.time_limit);
  if (!manifest::parse_time_limit(s.cluster.time_limit))
    refuse_manifest_value(s, "cluster.time_limit",
                          fmt::format("'{}' is not HH:MM:SS or D-HH:MM:SS", s.cluster.time_limit));
  for (std::size_t i = 0; i < s.cluster.extra_sbatch.size(); ++i) {
    std::string problem;
    if (!manifest::parse_sbatch_option(s.cluster.extra_sbatch[i], problem))
      refuse_manifest_value(s, fmt::format("cluster.extra_sbatch[{}]", i), problem);
  }
}

// Every value either script writes, before a line of it is rendered.
void check_spec(const ScriptSpec& s) {
  check_path("the manifest path", s.manifest, "move or rename the manifest");
  check_path("the screen executable", s.screen_exe, "run screen from a folder whose path has no control characters");
  check_output(s);
  check_job_name(s);
  check_cluster(s);
}

// "#SBATCH --name=value", the value quoted for sbatch; `field` names its origin for messages.
void option(std::string& text, const ScriptSpec& s, const std::string& field, const std::string& name,
            const std::string& value) {
  check_directive_value(s, field, value);
  text += fmt::format("#SBATCH --{}={}\n", name, sbatch_quote(value));
}

// --output / --error: the folder with '%' doubled, then SLURM's own pattern (e.g. %A_%a.out).
void log_option(std::string& text, const ScriptSpec& s, const std::string& name, const std::string& pattern) {
  option(text, s, "job.output", name, slurm_filename_literal(logs_dir(s.output)) + "/" + pattern);
}

// The options both scripts share, after their own: time, partition.
void common_options(std::string& text, const ScriptSpec& s) {
  option(text, s, "cluster.time_limit", "time", s.cluster.time_limit);
  if (!s.cluster.partition.empty()) option(text, s, "cluster.partition", "partition", s.cluster.partition);
}

// One extra option rebuilt from its parsed form, its value quoted: never pasted as written.
std::string extra_argument(const manifest::SbatchOption& o) {
  if (o.is_long) return "--" + o.name + (o.has_value ? "=" + sbatch_quote(o.value) : "");
  if (!o.has_value) return "-" + o.name;
  return "-" + o.name + (o.attached ? "" : " ") + sbatch_quote(o.value);
}

void extra_options(std::string& text, const ScriptSpec& s) {
  for (std::size_t i = 0; i < s.cluster.extra_sbatch.size(); ++i) {
    std::string problem;
    const auto o = manifest::parse_sbatch_option(s.cluster.extra_sbatch[i], problem);
    if (!o) refuse_manifest_value(s, fmt::format("cluster.extra_sbatch[{}]", i), problem);
    text += "#SBATCH " + extra_argument(*o) + "\n";
  }
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
  check_spec(s);
  std::string t = "#!/bin/bash\n";
  t += fmt::format("# screen job {}: one array task per shard (0-{}), each running `screen run --shard env`.\n",
                   s.job_name, s.shards - 1);
  t += "# Written by `screen submit`; a requeued or repeated task resumes or skips its shard.\n";
  option(t, s, "job.name", "job-name", "screen-" + s.job_name);
  std::string range = fmt::format("0-{}", s.shards - 1);
  if (s.cluster.max_concurrent > 0) range += fmt::format("%{}", s.cluster.max_concurrent);
  option(t, s, "sharding", "array", range);
  common_options(t, s);
  if (s.use_gpus && s.cluster.gpus_per_task > 0)
    option(t, s, "cluster.gpus_per_task", "gres", fmt::format("gpu:{}", s.cluster.gpus_per_task));
  if (s.cpu_threads > 0) option(t, s, "resources.cpu_threads", "cpus-per-task", std::to_string(s.cpu_threads));
  t += "#SBATCH --requeue\n";
  option(t, s, "open-mode", "open-mode", "append");
  log_option(t, s, "output", "%A_%a.out");
  log_option(t, s, "error", "%A_%a.err");
  extra_options(t, s);
  t += fmt::format("exec {} run {} --shard env\n", shell_quote(s.screen_exe), shell_quote(s.manifest));
  return t;
}

std::string merge_script(const ScriptSpec& s) {
  check_spec(s);
  std::string t = "#!/bin/bash\n";
  t += fmt::format("# screen job {}: merges the {} shards' parts into results.h5 once every array task succeeded.\n",
                   s.job_name, s.shards);
  t += "# Written by `screen submit`; submitted with --dependency=afterok:<array job id>.\n";
  option(t, s, "job.name", "job-name", "screen-" + s.job_name + "-merge");
  common_options(t, s);
  log_option(t, s, "output", "merge-%j.out");
  log_option(t, s, "error", "merge-%j.err");
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
