// The run profile (run_profile.hpp): what each worker did per stage, its GPU and traceback shares,
// writes and waiting; saved in the output folder, read back and summed by `screen status`.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "engine/run_profile.hpp"
#include "store/journal.hpp"
#include "engine_test_util.hpp"
#include "fake_device.hpp"

namespace screen::engine::testing {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const ProfileRow* find_row(const ProfileTable& t, const std::string& worker, const std::string& stage) {
  for (const auto& r : t.rows)
    if (r.worker == worker && r.stage == stage) return &r;
  return nullptr;
}

TEST(RunProfile, RowsPerWorkerAndStageWithTotalsAndWait) {
  RunProfile p;
  p.add_worker("idle");
  p.add_batch("gpu 0", plan::StageKind::bpmax, 10, 2.0, 1.5, 0.25);
  p.add_batch("gpu 0", plan::StageKind::bpmax, 5, 1.0, 2.0, 0.0);  // event time over wall: capped at busy
  p.add_write("gpu 0", plan::StageKind::bpmax, 0.5);
  p.add_batch("gpu 0", plan::StageKind::nussinov, 3, 0.5, 0.0, 0.0);
  const ProfileTable t = p.table("finished");
  const ProfileRow* b = find_row(t, "gpu 0", "bpmax");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->cell.units, 15u);
  EXPECT_EQ(b->cell.batches, 2u);
  EXPECT_DOUBLE_EQ(b->cell.busy, 3.0);
  EXPECT_DOUBLE_EQ(b->cell.gpu, 2.5);
  EXPECT_DOUBLE_EQ(b->cell.traceback, 0.25);
  EXPECT_DOUBLE_EQ(b->cell.host(), 0.25);
  EXPECT_DOUBLE_EQ(b->cell.write, 0.5);
  const ProfileRow* all = find_row(t, "gpu 0", "all");
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(all->cell.units, 18u);
  EXPECT_DOUBLE_EQ(all->cell.busy, 3.5);
  const ProfileRow* idle = find_row(t, "idle", "all");
  ASSERT_NE(idle, nullptr);
  EXPECT_EQ(idle->cell.units, 0u);
  EXPECT_NEAR(idle->wait, t.wall_seconds, 1e-6);  // a worker that never got work waited all along
  EXPECT_EQ(find_row(t, "idle", "bpmax"), nullptr);
}

TEST(RunProfile, SavedFilesAreReadBackAndSummed) {
  TempDir dir;
  RunProfile a, b;
  a.add_batch("cpu", plan::StageKind::miranda, 4, 1.0, 0.0, 0.0);
  b.add_batch("cpu", plan::StageKind::miranda, 6, 2.0, 0.0, 0.0);
  b.add_batch("gpu 1", plan::StageKind::bpmax, 1, 1.0, 0.75, 0.0);
  save_profile(profile_path(dir.path().string(), true, 0), a.table("finished"));
  save_profile(profile_path(dir.path().string(), true, 1), b.table("finished"));
  EXPECT_EQ(slurp(profile_path(dir.path().string(), true, 1)).rfind("# screen profile 1\n# wall_s\t", 0), 0u);
  const ProfileTable t = read_profiles(dir.path().string());
  const ProfileRow* m = find_row(t, "cpu", "miranda");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->cell.units, 10u);
  EXPECT_NEAR(m->cell.busy, 3.0, 1e-3);
  const ProfileRow* g = find_row(t, "gpu 1", "bpmax");
  ASSERT_NE(g, nullptr);
  EXPECT_NEAR(g->cell.gpu, 0.75, 1e-3);
  EXPECT_EQ(t.state, "finished");
  const std::string text = format_profile(t);
  EXPECT_NE(text.find("gpu 1"), std::string::npos) << text;
  EXPECT_NE(text.find("busy"), std::string::npos) << text;
  // A folder without a profile prints nothing; a damaged line is skipped.
  TempDir empty;
  EXPECT_EQ(format_profile(read_profiles(empty.path().string())), "");
  spit(empty.file("profile.tsv"), "# screen profile 1\nworker\tstage\nx\tbpmax\tnot a number\t1\t1\t1\t1\t1\t1\t-\n");
  EXPECT_TRUE(read_profiles(empty.path().string()).rows.empty());
}

TEST(RunProfile, ARunCountsEveryUnitOnTheWorkerThatRanItAndKeepsTheFile) {
  TempDir dir;
  manifest::Job job = manifest::load_manifest(write_job(dir, 1, 5));
  std::vector<std::shared_ptr<FakeDevice>> fakes;
  std::vector<std::shared_ptr<Device>> devices;
  for (int k = 0; k < 3; ++k) {
    fakes.push_back(std::make_shared<FakeDevice>("fake " + std::to_string(k), 1));
    fakes.back()->delay_ms = 20;
    fakes.back()->gpu_seconds_per_batch = 0.001;
    devices.push_back(fakes.back());
  }
  RunOptions o = quiet_options(1, 6);
  o.devices = devices;
  const RunSummary s = run_job(job, o);
  ASSERT_TRUE(s.merged);
  std::uint64_t total = 0;
  for (const auto& f : fakes) {
    const ProfileRow* all = find_row(s.profile, f->name(), "all");
    ASSERT_NE(all, nullptr) << f->name();
    EXPECT_EQ(all->cell.units, f->units.load()) << f->name();
    EXPECT_EQ(all->cell.batches, static_cast<std::uint64_t>(f->batches.load())) << f->name();
    EXPECT_NEAR(all->cell.gpu, 0.001 * f->batches.load(), 1e-9) << f->name();
    EXPECT_GE(all->cell.busy, 0.02 * f->batches.load()) << f->name();  // the delay is inside the batch call
    EXPECT_LE(all->cell.busy + all->cell.write + all->wait, s.profile.wall_seconds + 1e-6);
    total += all->cell.units;
  }
  EXPECT_EQ(total, s.units_total);  // every unit counted once
  for (const char* stage : {"nussinov", "miranda", "bpmax"}) {
    std::uint64_t n = 0;
    for (const auto& f : fakes)
      if (const ProfileRow* r = find_row(s.profile, f->name(), stage)) n += r->cell.units;
    EXPECT_GT(n, 0u) << stage;
  }
  const ProfileTable saved = read_profiles(job.output);
  ASSERT_EQ(saved.rows.size(), s.profile.rows.size());
  EXPECT_EQ(saved.state, "finished");
  // --restart clears it with the rest of the state.
  o.restart = true;
  o.devices = {devices[0]};
  run_job(job, o);
  EXPECT_EQ(find_row(read_profiles(job.output), "fake 1", "all"), nullptr);
}

TEST(RunProfile, StatusShowsTheProfile) {
  TempDir dir;
  const std::string manifest = write_job(dir, 2);
  ASSERT_EQ(run_shell(std::string(SCREEN_EXE) + " run -q " + manifest + " 2>&1").code, 0);
  const CommandResult st = run_shell(std::string(SCREEN_EXE) + " status " + dir.file("out"));
  EXPECT_EQ(st.code, 0);
  EXPECT_NE(st.out.find("profile ("), std::string::npos) << st.out;
  EXPECT_NE(st.out.find(" bpmax "), std::string::npos) << st.out;
  EXPECT_TRUE(fs::exists(dir.file("out/profile.tsv")));
}

}  // namespace
}  // namespace screen::engine::testing

// Host tasks (Device::start) run beside the device's next batch; rows, checkpoints and resumption
// are those of a run without them.
namespace screen::engine::testing {
namespace {

TEST(HostTasks, RowsAreThoseOfARunWithoutTasksAndTheTaskTimeOverlaps) {
  TempDir dir;
  manifest::Job job = manifest::load_manifest(write_job(dir, 1, 9));
  job.output = dir.file("plain");
  RunOptions o = quiet_options(1, 3);
  o.devices = {std::make_shared<FakeDevice>("plain", 1)};
  const RunSummary plain = run_job(job, o);

  auto split = std::make_shared<FakeDevice>("split", 1);
  split->split = true;
  split->task_delay_ms = 15;
  split->max_units = 3;  // many batches, so that tasks and batches interleave
  job.output = dir.file("split");
  o.devices = {split};
  const RunSummary s = run_job(job, o);
  ASSERT_TRUE(s.merged);
  expect_stage_rows_equal(store::ResultsReader(plain.results).stage_rows(),
                          store::ResultsReader(s.results).stage_rows());
  EXPECT_EQ(split->tasks_overlapped.load(), 0) << "a shard has one host task in flight at a time";
  const ProfileRow* all = find_row(s.profile, "split", "all");
  ASSERT_NE(all, nullptr);
  EXPECT_GE(all->cell.overlap, 0.015 * split->batches.load() * 0.9);
  EXPECT_EQ(all->cell.units, s.units_total);
}

TEST(HostTasks, AStopWithATaskInFlightCheckpointsItAndTheResumeIsExact) {
  TempDir dir;
  manifest::Job job = manifest::load_manifest(write_job(dir, 1, 13));
  job.checkpoint.every_seconds = 0;
  job.output = dir.file("reference");
  RunOptions o = quiet_options(1, 1);
  o.devices = {std::make_shared<FakeDevice>("reference", 1)};
  const RunSummary ref = run_job(job, o);

  job.output = dir.file("stopped");
  std::atomic<int> stop{0};
  auto first = std::make_shared<FakeDevice>("first", 1);
  first->split = true;
  first->task_delay_ms = 5;
  first->stop = &stop;
  first->stop_after_batches = 7;
  o.devices = {first};
  o.stop = &stop;
  expect_stopped(job, o, ExitCode::terminated);
  EXPECT_TRUE(store::read_journal(job.output + "/journal").entries.empty());
  EXPECT_EQ(job_status(job.output).units_checkpointed, 7u);  // the batch in flight was completed and saved

  auto again = std::make_shared<FakeDevice>("again", 1);
  again->split = true;
  o.devices = {again};
  o.stop = nullptr;
  const RunSummary resumed = run_job(job, o);
  ASSERT_TRUE(resumed.merged);
  EXPECT_EQ(resumed.units_resumed, 7u);
  expect_stage_rows_equal(store::ResultsReader(ref.results).stage_rows(),
                          store::ResultsReader(resumed.results).stage_rows());
}

}  // namespace
}  // namespace screen::engine::testing
