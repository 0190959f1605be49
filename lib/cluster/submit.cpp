#include "cluster/submit.hpp"

#include <filesystem>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cluster/jobs_log.hpp"
#include "cluster/sbatch_script.hpp"
#include "cluster/slurm.hpp"
#include "common/error.hpp"
#include "common/output_file.hpp"
#include "engine/folder.hpp"
#include "engine/inputs.hpp"
#include "engine/run_state.hpp"
#include "plan/plan.hpp"
#include "store/lock.hpp"

namespace screen::cluster {

namespace fs = std::filesystem;

namespace {

void create_folder(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw ResourceError(fmt::format("{}: cannot create the folder: {}", dir, ec.message()));
}

void write_file(const std::string& path, const std::string& text) {
  OutputFile out(path);
  out.write(text);
  out.commit();
  fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::add);
}

// run.info as the first `screen run` (or `screen run --shard K`) writes it; an existing one must
// describe this manifest, these inputs and this plan, as a resume demands (lib/engine/folder.hpp).
void prepare_output(const manifest::Job& job, const engine::Inputs& in, const plan::Plan& p) {
  create_folder(job.output);
  store::OutputLock lock(job.output);  // not while a full run or merge holds the folder
  const engine::RunState now = engine::current_state(job, in, p);
  engine::RunState old;
  if (!engine::read_run_state(job.output, old)) {
    if (fs::exists(engine::journal_path(job.output)))
      throw ConflictError(fmt::format("{} has a journal but no run.info; run `screen run {} --restart` or use a new "
                                      "output folder",
                                      job.output, job.manifest_path));
    engine::write_run_state(job.output, now);
    return;
  }
  const std::string diff = engine::differences(old, now);
  if (!diff.empty())
    throw ConflictError(fmt::format("{} holds an earlier run that cannot be resumed: {}; start over with `screen run "
                                    "{} --restart` or use a new output folder",
                                    job.output, diff, job.manifest_path));
}

// Refuses while an earlier array of this folder still has tasks queued or running (they would
// contend for the same shards); cancels earlier merge jobs that wait on an array that is gone.
void check_earlier_submissions(const std::string& output, std::vector<std::string>& notes) {
  const std::vector<Submission> earlier = read_jobs_log(output);
  if (earlier.empty()) return;
  std::vector<std::string> ids;
  for (const auto& s : earlier) {
    ids.push_back(s.array_job);
    ids.push_back(s.merge_job);
  }
  std::vector<QueueEntry> entries;
  std::string why;
  if (!squeue_jobs(ids, entries, why)) {
    spdlog::warn("cannot check earlier submissions of {}: {}", output, why);
    return;
  }
  for (const auto& s : earlier)
    for (const auto& e : entries)
      if (e.job_id == s.array_job)
        throw ConflictError(fmt::format("{}: array job {} of an earlier `screen submit` still has task {} {}; wait for "
                                        "it or `scancel {}` first",
                                        output, s.array_job, e.job_id + "_" + std::to_string(e.task), e.state,
                                        s.array_job));
  for (const auto& s : earlier)
    for (const auto& e : entries)
      if (e.job_id == s.merge_job) {
        scancel(s.merge_job);
        notes.push_back(fmt::format("cancelled merge job {} of an earlier submission (its array job {} is gone, "
                                    "so its dependency could not be met)",
                                    s.merge_job, s.array_job));
      }
}

}  // namespace

SubmitResult submit_job(const manifest::Job& job, const SubmitOptions& options) {
  if (!job.cluster.present)
    throw ManifestError(fmt::format("{}: no `cluster` section; `screen submit` takes its partition, time limit and "
                                    "GPUs per task from it (docs/manifest.md)",
                                    job.manifest_path));
  if (job.cluster.scheduler != "slurm")
    throw ManifestError(fmt::format("{}: cluster.scheduler {}: only slurm is supported", job.manifest_path,
                                    job.cluster.scheduler));
  const engine::Inputs in = engine::load_inputs(job);
  const plan::Plan p = plan::make_plan(job, in.query_lengths(), in.target_lengths(), 0, in.target_both_strands);
  if (p.shards.empty()) throw InputError(fmt::format("{}: the job has no work units to submit", job.manifest_path));

  SubmitResult r;
  r.shards = static_cast<std::int64_t>(p.shards.size());
  const ScriptSpec spec = script_spec(job, r.shards, options.screen_exe);
  r.output = spec.output;
  r.array_script = array_script_path(spec.output);
  r.merge_script = merge_script_path(spec.output);
  r.array_text = array_script(spec);
  r.merge_text = merge_script(spec);
  r.array_command = array_submit_command(r.array_script);
  r.merge_command = merge_submit_command(r.merge_script, "ARRAY_JOB_ID");

  if (!options.dry_run) {
    prepare_output(job, in, p);
    check_earlier_submissions(spec.output, r.notes);
  }
  create_folder(logs_dir(spec.output));  // SLURM does not create the folders of --output / --error
  write_file(r.array_script, r.array_text);
  write_file(r.merge_script, r.merge_text);
  if (options.dry_run) return r;

  r.array_job = sbatch(r.array_command);
  r.merge_command = merge_submit_command(r.merge_script, r.array_job);
  try {
    r.merge_job = sbatch(r.merge_command);
  } catch (const Error& e) {
    throw ResourceError(fmt::format("array job {} was submitted, but its merge job was not: {}; run `screen merge {}` "
                                    "when the array is done, or `scancel {}` and submit again",
                                    r.array_job, e.what(), spec.output, r.array_job));
  }
  append_jobs_log(spec.output, {store::utc_now(), r.array_job, r.merge_job, r.shards});
  return r;
}

}  // namespace screen::cluster
