// Checkpoints inside a shard: segments written durably and verified (store), a stopped or killed
// shard resumed from its last checkpoint without recomputing the units before it, a damaged
// segment ignored (its units recomputed), and results equal to an uninterrupted run's.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>
#include <thread>

#include "engine/engine.hpp"
#include "engine/folder.hpp"
#include "engine_test_util.hpp"
#include "fake_device.hpp"
#include "store/checkpoint.hpp"
#include "store/durable.hpp"
#include "store/journal.hpp"

namespace screen::engine::testing {
namespace {

RunOptions opts() { return quiet_options(1); }

// write_job's small three-stage job in one shard, checkpoint after every batch.
manifest::Job one_shard_job(const TempDir& dir, std::uint64_t seed) {
  const std::string path = write_job(dir, 1, seed);
  std::ofstream(path, std::ios::app) << "checkpoint:\n  every: 0\n";
  return manifest::load_manifest(path);
}

store::StageRows reference_rows(manifest::Job job, const std::string& output) {
  job.output = output;
  run_job(job, opts());
  return store::ResultsReader(output + "/results.h5").stage_rows();
}

std::size_t count_checkpoints(const std::string& output) { return list_checkpoints(output, 0).size(); }

void flip_bytes_in_the_middle(const std::string& path) {
  const auto size = fs::file_size(path);
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(size / 4));
  const std::string junk(size / 2, '\x33');
  f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
}

// Runs the job on a fake device that requests a stop after `batches` batches; the run must end in
// an Error. Returns the units the device computed.
std::size_t run_until_stopped(const manifest::Job& job, int batches) {
  std::atomic<int> stop{0};
  auto dev = std::make_shared<FakeDevice>("fake", 1);
  dev->stop = &stop;
  dev->stop_after_batches = batches;
  RunOptions o = opts();
  o.stop = &stop;
  o.devices = {dev};
  EXPECT_THROW(run_job(job, o), Error);
  return dev->units.load();
}

TEST(CheckpointFile, RoundTripAndEveryMismatchIsRefused) {
  TempDir dir;
  // Shard 3 of units [10, 50), segment 1 of units [20, 27); manifest, inputs, plan; stages.
  const store::CheckpointInfo info{3, 10, 50, 1, 20, 27, "m", {"a", "b"}, "p",
                                   {store::StageKind::bpmax, store::StageKind::nussinov}};
  store::StageRows rows;
  rows.bpmax_scores.push_back({1, 2, 7, 3, 9});
  rows.nussinov_queries.push_back({4, 11, "((...))"});
  const std::string path = dir.file("seg.h5");
  store::write_checkpoint(path, info, rows);
  EXPECT_FALSE(fs::exists(store::temporary_name(path)));

  store::CheckpointSegment seg;
  std::string reason;
  ASSERT_TRUE(store::read_checkpoint(path, info, seg, reason)) << reason;
  EXPECT_EQ(seg.info.to, 27u);
  ASSERT_EQ(seg.rows.bpmax_scores.size(), 1u);
  EXPECT_TRUE(store::rows_equal(seg.rows.bpmax_scores[0], rows.bpmax_scores[0]));
  ASSERT_EQ(seg.rows.nussinov_queries.size(), 1u);
  EXPECT_EQ(seg.rows.nussinov_queries[0].structure, "((...))");

  auto refused = [&](store::CheckpointInfo want, const char* why) {
    std::string r;
    EXPECT_FALSE(store::read_checkpoint(path, want, seg, r)) << why;
    EXPECT_NE(r.find(path), std::string::npos) << r;
  };
  store::CheckpointInfo w = info;
  w.plan_sha256 = "other";
  refused(w, "plan");
  w = info;
  w.input_sha256 = {"a", "c"};
  refused(w, "inputs");
  w = info;
  w.sequence = 2;
  refused(w, "sequence");
  w = info;
  w.from = 21;
  refused(w, "from");
  w = info;
  w.unit_end = 25;
  refused(w, "to beyond the shard");

  flip_bytes_in_the_middle(path);
  refused(info, "damaged");
  refused(info, "damaged, twice");  // reading a damaged file never throws
}

TEST(Checkpoint, StoppedShardResumesAfterItsLastCheckpoint) {
  TempDir dir;
  const manifest::Job job = one_shard_job(dir, 11);
  const auto reference = reference_rows(job, dir.file("reference"));

  // every: 0 -> one unit per batch and a checkpoint after each; the stop saves the last one.
  EXPECT_EQ(run_until_stopped(job, 17), 17u);
  EXPECT_EQ(count_checkpoints(job.output), 17u);
  EXPECT_TRUE(store::read_journal(job.output + "/journal").entries.empty());
  const StatusReport stopped = job_status(job.output);
  EXPECT_EQ(stopped.units_done, 0u);
  EXPECT_EQ(stopped.units_checkpointed, 17u);  // status counts the checkpointed units of the stopped shard

  auto again = std::make_shared<FakeDevice>("fake again", 1);
  RunOptions o2 = opts();
  o2.devices = {again};
  const RunSummary s = run_job(job, o2);
  EXPECT_EQ(s.units_resumed, 17u);
  EXPECT_EQ(s.units_ran, s.units_total - 17);
  EXPECT_EQ(again->units.load(), s.units_total - 17);  // the first 17 units were not computed again
  EXPECT_TRUE(s.merged);
  EXPECT_EQ(count_checkpoints(job.output), 0u);  // removed once the part is recorded
  expect_stage_rows_equal(store::ResultsReader(s.results).stage_rows(), reference);
  const StatusReport finished = job_status(job.output);
  EXPECT_EQ(finished.units_done, finished.units_total);
  EXPECT_EQ(finished.units_checkpointed, 0u);
}

TEST(Checkpoint, DamagedSegmentIsIgnoredAndItsUnitsRecomputed) {
  TempDir dir;
  const manifest::Job job = one_shard_job(dir, 12);
  const auto reference = reference_rows(job, dir.file("reference"));

  run_until_stopped(job, 12);
  const auto segments = list_checkpoints(job.output, 0);
  ASSERT_EQ(segments.size(), 12u);
  flip_bytes_in_the_middle(segments.at(5));  // segments 0-4 stay usable
  // Status reads only the segments' attributes: it counts the chain up to the first segment it cannot
  // read (at most all 12); the resume below verifies every segment.
  EXPECT_LE(job_status(job.output).units_checkpointed, 12u);
  EXPECT_GE(job_status(job.output).units_checkpointed, 5u);

  const RunSummary s = run_job(job, opts());
  EXPECT_EQ(s.units_resumed, 5u);
  EXPECT_EQ(s.units_ran, s.units_total - 5);
  expect_stage_rows_equal(store::ResultsReader(s.results).stage_rows(), reference);
  EXPECT_EQ(count_checkpoints(job.output), 0u);
}

TEST(Checkpoint, RestartRemovesCheckpoints) {
  TempDir dir;
  manifest::Job job = one_shard_job(dir, 13);
  run_until_stopped(job, 6);
  ASSERT_EQ(count_checkpoints(job.output), 6u);
  RunOptions r = opts();
  r.restart = true;
  const RunSummary s = run_job(job, r);
  EXPECT_EQ(s.units_resumed, 0u);
  EXPECT_EQ(s.units_ran, s.units_total);
  EXPECT_EQ(count_checkpoints(job.output), 0u);
}

TEST(Checkpoint, SigkillInsideAShardThenResumeKeepsTheCheckpointedUnits) {
  TempDir dir;
  const manifest::Job job = one_shard_job(dir, 14);
  const auto reference = reference_rows(job, dir.file("reference"));
  std::mt19937_64 rng(99);
  int resumed = 0;
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    fs::remove_all(job.output);
    const pid_t pid = start_screen_run(job.manifest_path);
    ASSERT_GT(pid, 0);
    // Wait for the first checkpoints, then kill at a random moment after them.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (count_checkpoints(job.output) < 3 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 40));
    ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFSIGNALED(status)) continue;  // finished first
    const std::size_t segments = count_checkpoints(job.output);
    ASSERT_GE(segments, 3u);
    const bool recorded = !store::read_journal(job.output + "/journal").entries.empty();
    const RunSummary s = run_job(job, opts());
    // One unit per segment (every: 0); a segment being written at the kill is a temporary file.
    // (Killed after the journal line but before the segments' removal: nothing to resume.)
    if (!recorded) {
      ++resumed;
      EXPECT_EQ(s.units_resumed, segments);
      EXPECT_EQ(s.units_ran + s.units_resumed, s.units_total);
    }
    expect_stage_rows_equal(store::ResultsReader(s.results).stage_rows(), reference);
    EXPECT_EQ(count_checkpoints(job.output), 0u);
    for (const auto& e : fs::directory_iterator(job.output))
      EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  }
  EXPECT_GE(resumed, 1) << "no kill landed inside the shard";
}

}  // namespace
}  // namespace screen::engine::testing
