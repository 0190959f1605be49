// Crash safety: `screen run` killed with SIGKILL at arbitrary moments, then resumed, gives the same
// results as an uninterrupted run, and leaves no temporary files behind once complete.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <thread>

#include "engine/engine.hpp"
#include "engine_test_util.hpp"

namespace screen::engine::testing {
namespace {

int wait_status(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

TEST(KillAndResume, SigkillAtRandomMomentsThenResumeGivesTheSameResults) {
  TempDir dir;
  const std::string manifest = write_job(dir, 12, 5);
  manifest::Job job = manifest::load_manifest(manifest);

  // The uninterrupted run, in another folder.
  manifest::Job ref_job = job;
  ref_job.output = dir.file("reference");
  RunOptions o;
  o.threads = 1;
  o.progress_interval = 1e9;
  run_job(ref_job, o);
  const auto reference = store::ResultsReader(ref_job.output + "/results.h5").stage_rows();

  std::mt19937_64 rng(2024);
  int killed = 0;
  for (int attempt = 0; attempt < 10; ++attempt) {
    const pid_t pid = start_screen_run(manifest);
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(10 + rng() % 150));
    ::kill(pid, SIGKILL);
    const int status = wait_status(pid);
    if (WIFSIGNALED(status)) {
      ++killed;
    } else {
      ASSERT_TRUE(WIFEXITED(status));
      ASSERT_EQ(WEXITSTATUS(status), 0) << "screen run failed after an earlier kill";
      break;  // it finished before the kill
    }
  }
  // Every kill may have come before the run wrote run.info (a slow start on a loaded machine): then
  // nothing is complete yet, and the folder is not yet a job's output for `status`.
  const std::size_t done_before =
      fs::exists(job.output + "/run.info") ? job_status(job.output).shards_done : std::size_t{0};
  std::printf("killed %d runs; %zu of 12 shards complete before the last run\n", killed, done_before);
  const pid_t pid = start_screen_run(manifest);
  const int status = wait_status(pid);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);

  expect_stage_rows_equal(store::ResultsReader(job.output + "/results.h5").stage_rows(), reference);
  const StatusReport st = job_status(job.output);
  EXPECT_EQ(st.shards_done, 12u);
  for (const auto& e : fs::directory_iterator(job.output))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

TEST(KillAndResume, SigtermStopsCleanlyWithExit143) {
  TempDir dir;
  const std::string manifest = write_job(dir, 12, 6);
  const manifest::Job job = manifest::load_manifest(manifest);
  std::mt19937_64 rng(77);
  int stopped = 0;
  for (int attempt = 0; attempt < 10; ++attempt) {
    const pid_t pid = start_screen_run(manifest);
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(10 + rng() % 150));
    ::kill(pid, SIGTERM);
    const int status = wait_status(pid);
    // Before main() installs its handler the default action kills the process; after, exit 143.
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) break;
    if (WIFEXITED(status)) {
      EXPECT_EQ(WEXITSTATUS(status), 143);
      ++stopped;
    } else {
      EXPECT_TRUE(WIFSIGNALED(status));
    }
    // Never a temporary part left by a clean stop, and every journal line names a part that exists.
    if (WIFEXITED(status) && fs::exists(job.output)) {
      for (const auto& e : fs::directory_iterator(job.output)) {
        EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
      }
    }
  }
  std::printf("%d runs stopped with exit 143\n", stopped);
  const pid_t pid = start_screen_run(manifest);
  const int status = wait_status(pid);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(job_status(job.output).shards_done, 12u);
}

}  // namespace
}  // namespace screen::engine::testing
