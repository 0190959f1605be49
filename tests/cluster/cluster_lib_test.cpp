// lib/cluster pieces on their own: --shard parsing, quoting, the squeue / sacct parsers, the jobs
// log, the lock probe, script rendering.
#include <gtest/gtest.h>

#include <cstring>

#include "cluster/jobs_log.hpp"
#include "cluster/lock_probe.hpp"
#include "cluster/process.hpp"
#include "cluster/sbatch_script.hpp"
#include "cluster/shard_arg.hpp"
#include "cluster/shell_quote.hpp"
#include "cluster/slurm.hpp"
#include "cluster_test_util.hpp"
#include "common/error.hpp"
#include "engine/shard_lock.hpp"

namespace screen::cluster::testing {
namespace {

const char* g_task = nullptr;
const char* fake_getenv(const char* name) { return std::strcmp(name, "SLURM_ARRAY_TASK_ID") == 0 ? g_task : nullptr; }

std::string usage_message(const std::string& arg) {
  try {
    parse_shard_argument(arg, fake_getenv);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ShardArgument, NumbersAndEnvironment) {
  EXPECT_EQ(parse_shard_argument("0", fake_getenv), 0);
  EXPECT_EQ(parse_shard_argument("12", fake_getenv), 12);
  g_task = "7";
  EXPECT_EQ(parse_shard_argument("env", fake_getenv), 7);
  g_task = nullptr;
  EXPECT_TRUE(contains(usage_message("env"), "SLURM_ARRAY_TASK_ID is not set")) << usage_message("env");
  g_task = "";
  EXPECT_TRUE(contains(usage_message("env"), "SLURM_ARRAY_TASK_ID is not set")) << usage_message("env");
  g_task = "3a";
  EXPECT_TRUE(contains(usage_message("env"), "SLURM_ARRAY_TASK_ID='3a' is not a shard number")) << usage_message("env");
  g_task = "-1";
  EXPECT_TRUE(contains(usage_message("env"), "'-1'")) << usage_message("env");
  g_task = nullptr;
  EXPECT_TRUE(contains(usage_message("-2"), "--shard -2: expected a shard number")) << usage_message("-2");
  EXPECT_TRUE(contains(usage_message("x"), "or `env`")) << usage_message("x");
}

TEST(ShellQuote, PlainWordsStayAndOthersAreQuoted) {
  EXPECT_EQ(shell_quote("/a/b-c_d.yaml"), "/a/b-c_d.yaml");
  EXPECT_EQ(shell_quote("/logs/%A_%a.out"), "/logs/%A_%a.out");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("$HOME"), "'$HOME'");
  EXPECT_EQ(shell_quote(""), "''");
}

TEST(Slurm, ParsesJobIdsSqueueAndSacct) {
  std::string job;
  long long task = 0;
  EXPECT_TRUE(parse_job_id("1234_5", job, task));
  EXPECT_EQ(job, "1234");
  EXPECT_EQ(task, 5);
  EXPECT_TRUE(parse_job_id("99", job, task));
  EXPECT_EQ(task, -1);
  EXPECT_FALSE(parse_job_id("1234_[4-7%2]", job, task));
  EXPECT_FALSE(parse_job_id("1234_5.batch", job, task));

  const auto q = parse_squeue("1234_0|RUNNING|None\n1234_3|PENDING|JobArrayTaskLimit\n1235|PENDING|Dependency\n"
                              "1234_[5-6]|PENDING|Priority\n");
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(q[0].job_id, "1234");
  EXPECT_EQ(q[0].task, 0);
  EXPECT_EQ(q[0].state, "RUNNING");
  EXPECT_EQ(q[1].task, 3);
  EXPECT_EQ(q[1].reason, "JobArrayTaskLimit");
  EXPECT_EQ(q[2].job_id, "1235");
  EXPECT_EQ(q[2].reason, "Dependency");

  const auto a = parse_sacct("1234_0|COMPLETED\n1234_0.batch|COMPLETED\n1234_1|CANCELLED by 0\n1235|PENDING\n");
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[1].task, 1);
  EXPECT_EQ(a[1].state, "CANCELLED");
  EXPECT_EQ(a[2].job_id, "1235");
}

TEST(Process, CapturesOutputErrorAndExitCode) {
  const ProcessResult r = run_process({"sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_THROW(run_process({"screen-no-such-program-xyz"}), ResourceError);
  EXPECT_TRUE(find_program("screen-no-such-program-xyz").empty());
  EXPECT_FALSE(find_program("sh").empty());
}

TEST(JobsLog, AppendsAndReadsBack) {
  TempDir dir;
  const std::string out = dir.file("out");
  std::filesystem::create_directories(slurm_dir(out));
  EXPECT_TRUE(read_jobs_log(out).empty());
  append_jobs_log(out, {"2026-01-01T00:00:00Z", "100", "101", 4});
  append_jobs_log(out, {"2026-01-02T00:00:00Z", "200", "201", 4});
  const auto v = read_jobs_log(out);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].array_job, "100");
  EXPECT_EQ(v[1].merge_job, "201");
  EXPECT_EQ(v[1].shards, 4);
  EXPECT_EQ(slurp(jobs_log_path(out)), "# submitted\tarray_job\tmerge_job\tshards\n"
                                       "2026-01-01T00:00:00Z\t100\t101\t4\n2026-01-02T00:00:00Z\t200\t201\t4\n");
}

TEST(LockProbe, SeesAShardLockWithoutTakingIt) {
  TempDir dir;
  const std::string out = dir.file("out");
  std::filesystem::create_directories(out);
  EXPECT_EQ(probe_lock(engine::shard_lock_path(out, 2)), LockProbe::free);  // no lock file yet
  {
    engine::ShardLock held(out, 2);  // what `screen run --shard 2` holds (lib/engine)
    EXPECT_EQ(probe_lock(engine::shard_lock_path(out, 2)), LockProbe::held);
    EXPECT_EQ(probe_lock(engine::shard_lock_path(out, 1)), LockProbe::free);
    EXPECT_EQ(probe_lock(engine::shard_lock_path(out, 2)), LockProbe::held);  // probing did not disturb it
  }
  EXPECT_EQ(probe_lock(engine::shard_lock_path(out, 2)), LockProbe::free);
}

ScriptSpec full_spec() {
  ScriptSpec s;
  s.job_name = "screen1";
  s.manifest = "/data/jobs/screen 1.yaml";
  s.output = "/scratch/out";
  s.screen_exe = "/opt/screen/bin/screen";
  s.shards = 12;
  s.cluster.present = true;
  s.cluster.partition = "gpu";
  s.cluster.gpus_per_task = 2;
  s.cluster.time_limit = "1-02:00:00";
  s.cluster.max_concurrent = 3;
  s.cluster.extra_sbatch = {"--mem=16G", "--account=rna lab"};
  s.cpu_threads = 8;
  return s;
}

TEST(SbatchScript, ArrayScriptHasEveryOption) {
  const std::string t = array_script(full_spec());
  EXPECT_EQ(t.rfind("#!/bin/bash\n", 0), 0u);
  for (const char* line :
       {"#SBATCH --job-name=screen-screen1\n", "#SBATCH --array=0-11%3\n", "#SBATCH --time=1-02:00:00\n",
        "#SBATCH --partition=gpu\n", "#SBATCH --gres=gpu:2\n", "#SBATCH --cpus-per-task=8\n", "#SBATCH --requeue\n",
        "#SBATCH --open-mode=append\n", "#SBATCH --output=/scratch/out/slurm/logs/%A_%a.out\n",
        "#SBATCH --error=/scratch/out/slurm/logs/%A_%a.err\n", "#SBATCH --mem=16G\n", "#SBATCH --account=\"rna lab\"\n",
        "\nexec /opt/screen/bin/screen run '/data/jobs/screen 1.yaml' --shard env\n"})
    EXPECT_TRUE(contains(t, line)) << line << "\nnot in\n" << t;
  // extra options come after screen's own, so they override them
  EXPECT_GT(t.find("--mem=16G"), t.find("--requeue"));
}

TEST(SbatchScript, NoLimitNoPartitionNoGpus) {
  ScriptSpec s = full_spec();
  s.cluster.max_concurrent = 0;
  s.cluster.partition.clear();
  s.cluster.extra_sbatch.clear();
  s.cpu_threads = 0;
  std::string t = array_script(s);
  EXPECT_TRUE(contains(t, "#SBATCH --array=0-11\n")) << t;
  EXPECT_FALSE(contains(t, "--partition")) << t;
  EXPECT_FALSE(contains(t, "--cpus-per-task")) << t;
  EXPECT_TRUE(contains(t, "--gres=gpu:2")) << t;
  s.use_gpus = false;  // resources.devices: cpu
  EXPECT_FALSE(contains(array_script(s), "--gres")) << array_script(s);
  s.use_gpus = true;
  s.cluster.gpus_per_task = 0;
  EXPECT_FALSE(contains(array_script(s), "--gres")) << array_script(s);
}

TEST(SbatchScript, MergeScriptAndCommands) {
  const std::string t = merge_script(full_spec());
  for (const char* line : {"#SBATCH --job-name=screen-screen1-merge\n", "#SBATCH --time=1-02:00:00\n",
                           "#SBATCH --partition=gpu\n", "#SBATCH --output=/scratch/out/slurm/logs/merge-%j.out\n",
                           "#SBATCH --error=/scratch/out/slurm/logs/merge-%j.err\n", "#SBATCH --mem=16G\n",
                           "\nexec /opt/screen/bin/screen merge /scratch/out\n"})
    EXPECT_TRUE(contains(t, line)) << line << "\nnot in\n" << t;
  EXPECT_FALSE(contains(t, "--gres")) << t;
  EXPECT_FALSE(contains(t, "--array")) << t;
  EXPECT_EQ(command_text(array_submit_command("/scratch/out/slurm/array.sbatch")),
            "sbatch --parsable /scratch/out/slurm/array.sbatch");
  EXPECT_EQ(command_text(merge_submit_command("/s t/merge.sbatch", "4242")),
            "sbatch --parsable --dependency=afterok:4242 '/s t/merge.sbatch'");
}

}  // namespace
}  // namespace screen::cluster::testing
