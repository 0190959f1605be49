// `screen submit MANIFEST [--dry-run]`: writes <output>/slurm/array.sbatch (one SLURM array task
// per shard, each `screen run MANIFEST --shard env`) and merge.sbatch (`screen merge OUTPUT`) from
// the manifest's cluster section, submits the array and then the merge job with
// --dependency=afterok:<array job>, prints both job ids and records them in slurm/jobs.tsv
// (lib/cluster/submit.hpp). --dry-run writes and prints the scripts and the sbatch commands only.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "apps/screen/cli.hpp"
#include "cluster/sbatch_script.hpp"  // command_text
#include "cluster/submit.hpp"
#include "common/error.hpp"
#include "manifest/load_manifest.hpp"

namespace screen::cli {

namespace {

struct SubmitArgs {
  std::string manifest;
  bool dry_run = false;
};

// The running executable, which the array tasks run too (the same build on a shared file system).
std::string self_exe() {
  std::string buf(4096, '\0');
  const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size());
  if (n <= 0 || static_cast<std::size_t>(n) >= buf.size())
    throw ResourceError(fmt::format("/proc/self/exe: cannot find the screen executable: {}", std::strerror(errno)));
  buf.resize(static_cast<std::size_t>(n));
  return buf;
}

int run_submit(const SubmitArgs& a) {
  const manifest::Job job = manifest::load_manifest(a.manifest);
  cluster::SubmitOptions o;
  o.dry_run = a.dry_run;
  o.screen_exe = self_exe();
  const cluster::SubmitResult r = cluster::submit_job(job, o);
  if (a.dry_run) {
    fmt::print("# {} ({} array tasks)\n{}\n", r.array_script, r.shards, r.array_text);
    fmt::print("# {}\n{}\n", r.merge_script, r.merge_text);
    fmt::print("# would run:\n{}\n{}\n", cluster::command_text(r.array_command), cluster::command_text(r.merge_command));
    return 0;
  }
  for (const auto& n : r.notes) fmt::print("note: {}\n", n);
  fmt::print("array job: {} ({} tasks: {})\n", r.array_job, r.shards, r.array_script);
  fmt::print("merge job: {} (after the array succeeds: {})\n", r.merge_job, r.merge_script);
  fmt::print("follow with: screen status {}\n", r.output);
  return 0;
}

}  // namespace

void add_submit(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("submit", "Submit a job's shards to SLURM as an array job plus a merge job");
  auto a = std::make_shared<SubmitArgs>();
  cmd->add_option("manifest", a->manifest, "Job manifest (YAML) with a cluster section")->required();
  cmd->add_flag("--dry-run", a->dry_run, "Write and print the batch scripts and the sbatch commands; submit nothing");
  cmd->callback([&action, a] { action = [a]() -> int { return run_submit(*a); }; });
}

}  // namespace screen::cli
