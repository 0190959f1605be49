// `screen submit`, `screen run --shard env` and `screen status` through the built executable,
// with stand-ins for sbatch / squeue / sacct / scancel (small shell scripts on PATH) where a real
// SLURM is not needed; slurm_test.sh runs the real thing.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "cluster_test_util.hpp"

namespace screen::cluster::testing {
namespace {

const std::string kCluster = "cluster:\n  partition: short\n  gpus_per_task: 1\n  time_limit: \"02:30:00\"\n"
                             "  max_concurrent: 2\n  extra_sbatch: [\"--mem=4G\", \"--qos=low\"]\n";

// A folder of fake SLURM commands; `fake(name, body)` writes an executable sh script.
class FakeSlurm {
 public:
  explicit FakeSlurm(const TempDir& dir) : bin_(dir.file("bin")), log_(dir.file("slurm.log")) {
    std::filesystem::create_directories(bin_);
  }
  void fake(const std::string& name, const std::string& body) const {
    const std::string p = bin_ + "/" + name;
    spit(p, "#!/bin/sh\nPATH=/usr/bin:/bin\necho \"" + name + " $*\" >> " + log_ + "\n" + body + "\n");
    ::chmod(p.c_str(), 0755);
  }
  std::string env() const { return "PATH=" + bin_; }  // nothing else: no real SLURM either
  std::string log() const { return slurp(log_); }

 private:
  std::string bin_, log_;
};

TEST(Submit, DryRunWritesAndPrintsTheScriptsOnly) {
  TempDir dir;
  const std::string manifest = write_cluster_job(dir, 3, kCluster);
  const std::string out = dir.file("out");
  const Result r = screen("submit " + manifest + " --dry-run", "PATH=" + dir.file("nothing"));
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string array = slurp(out + "/slurm/array.sbatch"), merge = slurp(out + "/slurm/merge.sbatch");
  ASSERT_FALSE(array.empty()) << r.out;
  EXPECT_TRUE(contains(r.out, array)) << r.out;
  EXPECT_TRUE(contains(r.out, merge)) << r.out;
  for (const std::string& line : std::vector<std::string>{
           "#SBATCH --array=0-2%2\n", "#SBATCH --time=02:30:00\n", "#SBATCH --partition=short\n",
        "#SBATCH --cpus-per-task=2\n", "#SBATCH --requeue\n", "#SBATCH --output=" + out + "/slurm/logs/%A_%a.out\n",
        "#SBATCH --error=" + out + "/slurm/logs/%A_%a.err\n", "#SBATCH --mem=4G\n#SBATCH --qos=low\n",
        " run " + manifest + " --shard env\n"})
    EXPECT_TRUE(contains(array, line)) << line << " not in\n" << array;
  EXPECT_FALSE(contains(array, "--gres")) << "the job's resources.devices is cpu:\n" << array;
  EXPECT_TRUE(contains(array, "exec /")) << "the absolute path of screen:\n" << array;
  EXPECT_TRUE(contains(merge, " merge " + out + "\n")) << merge;
  EXPECT_TRUE(contains(merge, "#SBATCH --output=" + out + "/slurm/logs/merge-%j.out\n")) << merge;
  EXPECT_TRUE(contains(r.out, "sbatch --parsable " + out + "/slurm/array.sbatch\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "sbatch --parsable --dependency=afterok:ARRAY_JOB_ID " + out + "/slurm/merge.sbatch\n"))
      << r.out;
  EXPECT_TRUE(std::filesystem::is_directory(out + "/slurm/logs"));
  EXPECT_FALSE(std::filesystem::exists(out + "/run.info")) << "a dry run changes no state";
  EXPECT_FALSE(std::filesystem::exists(out + "/slurm/jobs.tsv"));

  // GPUs: --gres from gpus_per_task when resources.devices is not cpu
  std::string text = slurp(manifest);
  text.replace(text.find("devices: cpu"), 12, "devices: auto");
  spit(manifest, text);
  const Result g = screen("submit " + manifest + " --dry-run");
  ASSERT_EQ(g.code, 0) << g.out;
  EXPECT_TRUE(contains(slurp(out + "/slurm/array.sbatch"), "#SBATCH --gres=gpu:1\n")) << g.out;
}

TEST(Submit, NeedsAClusterSectionAndSbatch) {
  TempDir dir;
  const std::string plain = engine::testing::write_job(dir, 3);
  Result r = screen("submit " + plain + " --dry-run");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_TRUE(contains(r.out, "no `cluster` section")) << r.out;

  const std::string manifest = write_cluster_job(dir, 3, kCluster);
  FakeSlurm slurm(dir);
  r = screen("submit " + manifest, slurm.env());  // no sbatch on PATH
  EXPECT_EQ(r.code, 6) << r.out;
  EXPECT_TRUE(contains(r.out, "sbatch: command not found")) << r.out;

  slurm.fake("sbatch", "echo 'sbatch: error: Batch job submission failed: Invalid partition name specified' >&2\n"
                       "exit 1");
  r = screen("submit " + manifest, slurm.env());
  EXPECT_EQ(r.code, 6) << r.out;
  EXPECT_TRUE(contains(r.out, "Invalid partition name specified")) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir.file("out/slurm/jobs.tsv")));
}

TEST(Submit, SubmitsArrayThenMergeAndStatusFollowsTheQueue) {
  TempDir dir;
  const std::string manifest = write_cluster_job(dir, 3, kCluster);
  const std::string out = dir.file("out");
  FakeSlurm slurm(dir);
  slurm.fake("sbatch", "case \"$*\" in *--dependency*) echo 501;; *) echo '500;cluster';; esac");
  slurm.fake("squeue", "cat " + dir.file("queue") + " 2>/dev/null; exit 0");
  slurm.fake("sacct", "echo 'sacct: error: Slurm accounting storage is disabled' >&2; exit 1");
  slurm.fake("scancel", "exit 0");

  Result r = screen("submit " + manifest, slurm.env());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "array job: 500 (3 tasks")) << r.out;
  EXPECT_TRUE(contains(r.out, "merge job: 501")) << r.out;
  EXPECT_TRUE(contains(slurm.log(), "sbatch --parsable " + out + "/slurm/array.sbatch\n")) << slurm.log();
  EXPECT_TRUE(contains(slurm.log(), "sbatch --parsable --dependency=afterok:500 " + out + "/slurm/merge.sbatch\n"))
      << slurm.log();
  const std::string jobs = slurp(out + "/slurm/jobs.tsv");
  EXPECT_TRUE(contains(jobs, "\t500\t501\t3\n")) << jobs;
  EXPECT_TRUE(std::filesystem::exists(out + "/run.info")) << "status needs the shard count before any task runs";

  // what array task 0 runs
  r = screen("run " + manifest + " --shard env", "SLURM_ARRAY_TASK_ID=0");
  ASSERT_EQ(r.code, 0) << r.out;
  spit(dir.file("queue"), "500_1|RUNNING|None\n500_2|PENDING|JobArrayTaskLimit\n501|PENDING|Dependency\n");
  r = screen("status " + out, slurm.env());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "shards:   1/3 done\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "slurm:    array job 500 (3 tasks), merge job 501 PENDING (Dependency)")) << r.out;
  EXPECT_TRUE(contains(r.out, "states:   1 done, 1 running, 1 pending, 0 failed\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "\n0\tdone\t500_0\t-\n1\trunning\t500_1\tRUNNING\n2\tpending\t500_2\tPENDING\n"))
      << r.out;

  // a second submission while tasks of the first are queued is refused
  r = screen("submit " + manifest, slurm.env());
  EXPECT_EQ(r.code, 7) << r.out;
  EXPECT_TRUE(contains(r.out, "array job 500")) << r.out;

  // the tasks left the queue without finishing shards 1 and 2 (cancelled): failed
  spit(dir.file("queue"), "501|PENDING|DependencyNeverSatisfied\n");
  r = screen("status " + out, slurm.env());
  EXPECT_TRUE(contains(r.out, "states:   1 done, 0 running, 0 pending, 2 failed\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "\n1\tfailed\t500_1\tnot in queue\n")) << r.out;

  // resubmitting cancels the merge job that can no longer start
  r = screen("submit " + manifest, slurm.env());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "cancelled merge job 501")) << r.out;
  EXPECT_TRUE(contains(slurm.log(), "scancel 501\n")) << slurm.log();
  EXPECT_TRUE(contains(r.out, "array job: 500")) << r.out;
  EXPECT_TRUE(contains(slurp(out + "/slurm/jobs.tsv"), "\t500\t501\t3\n")) << r.out;

  // without squeue or sacct: the journal and the shard locks
  r = screen("status " + out, "PATH=" + dir.file("nothing"));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "queue:    squeue is not installed\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "states:   1 done, 0 running, 2 pending, 0 failed\n")) << r.out;
}

TEST(RunShardEnv, TakesTheShardFromSlurm) {
  TempDir dir;
  const std::string manifest = engine::testing::write_job(dir, 3);
  Result r = screen("run " + manifest + " --shard env", "-u SLURM_ARRAY_TASK_ID");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "SLURM_ARRAY_TASK_ID is not set")) << r.out;
  r = screen("run " + manifest + " --shard env", "SLURM_ARRAY_TASK_ID=x1");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "SLURM_ARRAY_TASK_ID='x1'")) << r.out;
  r = screen("run " + manifest + " --shard env", "SLURM_ARRAY_TASK_ID=3");  // shards 0..2
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "the plan has shards 0..2")) << r.out;

  r = screen("run " + manifest + " --shard env", "SLURM_ARRAY_TASK_ID=1");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "(1 run now, 0 kept")) << r.out;
  // a requeued or repeated task: skipped, exit 0
  r = screen("run " + manifest + " --shard env", "SLURM_ARRAY_TASK_ID=1");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "(0 run now, 1 kept")) << r.out;
  r = screen("status " + dir.file("out"));
  EXPECT_TRUE(contains(r.out, "states:   1 done, 0 running, 2 pending, 0 failed\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "\n1\tdone\t-\t-\n")) << r.out;
}

TEST(PlanMachineReadable, CountAndOutputFolder) {
  TempDir dir;
  const std::string manifest = engine::testing::write_job(dir, 3);
  Result r = screen("-q plan " + manifest + " --count");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out, "3\n");
  r = screen("-q plan " + manifest + " --count --shards 5");
  EXPECT_EQ(r.out, "5\n");
  r = screen("-q plan " + manifest + " --output-folder");
  EXPECT_EQ(r.out, dir.file("out") + "\n");
}

}  // namespace
}  // namespace screen::cluster::testing
