// Several workers at once: batches of units handed out dynamically across shards and stages to fake
// devices (GPU-posing ones and a CPU helper beside them, at random speeds) give the results of one
// worker, each unit computed once; one worker's error stops the others and is reported, and the
// folder resumes; the
// thread split between GPU workers and the CPU worker; batch sizing and GPU memory routing.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "common/error.hpp"
#include "engine/batching.hpp"
#include "engine/device_set.hpp"
#include "engine/engine.hpp"
#include "engine_test_util.hpp"
#include "fake_device.hpp"
#include "store/journal.hpp"

namespace screen::engine::testing {
namespace {

RunOptions opts(std::vector<std::shared_ptr<Device>> devices, int shards) {
  RunOptions o = quiet_options(1, shards);
  o.devices = std::move(devices);
  return o;
}

store::StageRows rows_of(const RunSummary& s) { return store::ResultsReader(s.results).stage_rows(); }

TEST(Workers, FourWorkersTakeBatchesDynamicallyAndGiveTheResultsOfOne) {
  TempDir dir;
  manifest::Job job = manifest::load_manifest(write_job(dir, 1, 21));
  job.output = dir.file("one");
  auto single = std::make_shared<FakeDevice>("single", 2);
  const RunSummary one = run_job(job, opts({single}, 1));

  std::vector<std::shared_ptr<FakeDevice>> fakes;
  std::vector<std::shared_ptr<Device>> devices;
  for (int k = 0; k < 4; ++k) {
    fakes.push_back(std::make_shared<FakeDevice>("fake " + std::to_string(k), 1));
    fakes.back()->delay_ms = 30;  // every worker gets to take batches
    devices.push_back(fakes.back());
  }
  job.output = dir.file("four");
  const RunSummary four = run_job(job, opts(devices, 10));
  ASSERT_TRUE(four.merged);
  EXPECT_EQ(four.ran.size(), 10u);
  EXPECT_EQ(four.workers.size(), 4u);
  std::size_t units = 0;
  for (const auto& f : fakes) {
    EXPECT_GT(f->units.load(), 0u) << f->name();
    units += f->units.load();
  }
  EXPECT_EQ(units, four.units_total);  // every unit computed exactly once
  // Each shard names the workers that computed its units ("fake 0; fake 2").
  std::set<std::string> who;
  for (const auto& [id, names] : four.devices) {
    std::size_t from = 0;
    while (from <= names.size()) {
      const std::size_t to = std::min(names.find("; ", from), names.size());
      who.insert(names.substr(from, to - from));
      from = to + 2;
    }
  }
  EXPECT_EQ(who, (std::set<std::string>{"fake 0", "fake 1", "fake 2", "fake 3"}));
  expect_stage_rows_equal(rows_of(one), rows_of(four));
  // /shards records who ran what.
  for (const auto& s : store::ResultsReader(four.results).shards())
    EXPECT_EQ(s.device, four.devices.at(s.id)) << s.id;
}

TEST(Workers, OneFailingWorkerStopsTheOthersAndTheErrorIsReported) {
  TempDir dir;
  manifest::Job job = manifest::load_manifest(write_job(dir, 1, 22));
  job.output = dir.file("reference");
  const RunSummary ref = run_job(job, opts({std::make_shared<FakeDevice>("ref", 2)}, 1));

  job.output = dir.file("out");
  std::vector<std::shared_ptr<Device>> devices;
  for (int k = 0; k < 3; ++k) {
    auto f = std::make_shared<FakeDevice>("fake " + std::to_string(k), 1);
    f->delay_ms = 20;
    if (k == 1) f->fail_at_batch = 3;
    devices.push_back(f);
  }
  try {
    run_job(job, opts(devices, 12));
    FAIL() << "expected the fake device's ResourceError";
  } catch (const ResourceError& e) {
    EXPECT_NE(std::string(e.what()).find("fake 1: the fake device failed"), std::string::npos) << e.what();
  }
  // The journal holds only committed parts; the rest resumes on healthy workers.
  const auto recorded = store::read_journal(job.output + "/journal").entries.size();
  EXPECT_LT(recorded, 12u);
  for (const auto& e : fs::directory_iterator(job.output))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  const RunSummary again =
      run_job(job, opts({std::make_shared<FakeDevice>("a", 1), std::make_shared<FakeDevice>("b", 1)}, 12));
  EXPECT_EQ(again.reused.size(), recorded);
  EXPECT_EQ(again.ran.size(), 12u - recorded);
  expect_stage_rows_equal(rows_of(ref), rows_of(again));
}

TEST(Workers, StopRequestStopsEveryWorker) {
  TempDir dir;
  const manifest::Job job = manifest::load_manifest(write_job(dir, 1, 23));
  std::atomic<int> stop{0};
  std::vector<std::shared_ptr<Device>> devices;
  for (int k = 0; k < 3; ++k) {
    auto f = std::make_shared<FakeDevice>("fake " + std::to_string(k), 1);
    f->delay_ms = 20;
    if (k == 0) {
      f->stop = &stop;
      f->stop_after_batches = 2;
    }
    devices.push_back(f);
  }
  RunOptions o = opts(devices, 12);
  o.stop = &stop;
  ASSERT_NO_FATAL_FAILURE(expect_stopped(job, o, ExitCode::terminated));
  for (const auto& e : fs::directory_iterator(job.output))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  const RunSummary s = run_job(job, opts({std::make_shared<FakeDevice>("after", 2)}, 12));
  EXPECT_TRUE(s.merged);
}

TEST(Workers, ACpuWorkerBesideGpuWorkersHelpsAndTheResultsAreThoseOfOne) {
  TempDir dir;
  manifest::Job job = manifest::load_manifest(write_job(dir, 1, 25));
  job.output = dir.file("reference");
  const RunSummary ref = run_job(job, opts({std::make_shared<FakeDevice>("ref", 2)}, 1));
  // Two GPU-posing workers at random speeds and a CPU worker of 8 threads beside them, over 1 to 4
  // shards: the CPU worker helps (with the cheap units, where a core does best against a GPU), every
  // unit is computed once, and the rows are those of one worker.
  std::mt19937 rng(7);
  for (int round = 0; round < 4; ++round) {
    std::vector<std::shared_ptr<FakeDevice>> fakes;
    for (int k = 0; k < 2; ++k) {
      fakes.push_back(std::make_shared<FakeDevice>("fake gpu " + std::to_string(k), 1));
      fakes.back()->gpu = true;
      fakes.back()->delay_ms = 20 + static_cast<int>(rng() % 20);  // long enough for the helper to start
      fakes.back()->max_units = 1 + rng() % 4;
      fakes.back()->split = round % 2 == 1;  // rows handed over by a host task
      fakes.back()->task_delay_ms = static_cast<int>(rng() % 10);
    }
    fakes.push_back(std::make_shared<FakeDevice>("fake cpu", 8));
    fakes.back()->max_units = 1 + rng() % 3;
    std::vector<std::shared_ptr<Device>> devices(fakes.begin(), fakes.end());
    job.output = dir.file("out" + std::to_string(round));
    const RunSummary s = run_job(job, opts(devices, 1 + round));
    ASSERT_TRUE(s.merged) << round;
    std::size_t units = 0;
    for (const auto& f : fakes) units += f->units.load();
    EXPECT_GE(units, s.units_total) << round;  // a helper batch may be computed again at the end
    EXPECT_EQ(s.units_ran, s.units_total) << round;  // but counted once
    EXPECT_GT(fakes[2]->units.load(), 0u) << round;  // the helper took some
    EXPECT_GT(fakes[0]->units.load() + fakes[1]->units.load(), 0u) << round;
    expect_stage_rows_equal(rows_of(ref), rows_of(s));
  }
}

TEST(Workers, ASlowHelpersBatchIsTakenAgainByTheGpuAndCountedOnce) {
  TempDir dir;
  manifest::Job job = manifest::load_manifest(write_job(dir, 1, 27));
  job.output = dir.file("reference");
  const RunSummary ref = run_job(job, opts({std::make_shared<FakeDevice>("ref", 2)}, 1));
  // The helper needs 1.5 s a batch: the GPU-posing worker finishes everything else first and then
  // computes the helper's batch again; whichever delivers first counts, the other is dropped.
  auto gpu = std::make_shared<FakeDevice>("fake gpu", 1);
  gpu->gpu = true;
  gpu->max_units = 2;
  gpu->delay_ms = 20;  // the run lasts long enough for the helper to take a batch
  auto cpu = std::make_shared<FakeDevice>("fake cpu", 8);
  cpu->delay_ms = 1500;
  job.output = dir.file("out");
  const RunSummary s = run_job(job, opts({gpu, cpu}, 2));
  ASSERT_TRUE(s.merged);
  EXPECT_GT(cpu->units.load(), 0u);
  EXPECT_EQ(gpu->units.load(), s.units_total);  // all of them, the helper's batch included
  EXPECT_EQ(s.units_ran, s.units_total);
  expect_stage_rows_equal(rows_of(ref), rows_of(s));
}

TEST(Workers, AStopWhileTheHelperHoldsUnitsAheadCheckpointsWhatIsInOrderAndTheResumeIsExact) {
  TempDir dir;
  manifest::Job job = manifest::load_manifest(write_job(dir, 1, 26));
  job.checkpoint.every_seconds = 0;  // a checkpoint after every batch written
  job.output = dir.file("reference");
  const RunSummary ref = run_job(job, opts({std::make_shared<FakeDevice>("ref", 2)}, 1));
  // One shard; the GPU-posing worker takes one unit at a time and asks for a stop after its 6th
  // batch, while the slow helper holds units further on.
  std::atomic<int> stop{0};
  auto gpu = std::make_shared<FakeDevice>("fake gpu", 1);
  gpu->gpu = true;
  gpu->max_units = 1;
  gpu->delay_ms = 10;
  gpu->stop = &stop;
  gpu->stop_after_batches = 6;
  auto cpu = std::make_shared<FakeDevice>("fake cpu", 8);
  cpu->max_units = 2;
  cpu->delay_ms = 40;
  job.output = dir.file("out");
  RunOptions o = opts({gpu, cpu}, 1);
  o.stop = &stop;
  ASSERT_NO_FATAL_FAILURE(expect_stopped(job, o, ExitCode::terminated));
  for (const auto& e : fs::directory_iterator(job.output))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  const RunSummary s = run_job(job, opts({std::make_shared<FakeDevice>("after", 2)}, 1));
  ASSERT_TRUE(s.merged);
  EXPECT_GE(s.units_resumed, 6u);  // at least the GPU worker's units, which came first in order
  EXPECT_EQ(s.units_resumed + s.units_ran, s.units_total);
  expect_stage_rows_equal(rows_of(ref), rows_of(s));
}

TEST(Workers, AStopDuringAShardsLastBatchCommitsNothingAndTheNextRunCommitsFromTheCheckpoint) {
  TempDir dir;
  manifest::Job job = manifest::load_manifest(write_job(dir, 1, 28));
  // How many batches the shard takes with batches of at most 7 units.
  auto counter = std::make_shared<FakeDevice>("count", 1);
  counter->max_units = 7;
  job.output = dir.file("count");
  const RunSummary ref = run_job(job, opts({counter}, 1));
  // A stop requested during the last batch (as SLURM's scancel would): the shard is not recorded,
  // all its rows go to checkpoints, and the next run commits the part without computing anything.
  std::atomic<int> stop{0};
  auto f = std::make_shared<FakeDevice>("stopped", 1);
  f->max_units = 7;
  f->stop = &stop;
  f->stop_after_batches = counter->batches.load();
  job.output = dir.file("out");
  RunOptions o = opts({f}, 1);
  o.stop = &stop;
  ASSERT_NO_FATAL_FAILURE(expect_stopped(job, o, ExitCode::terminated));
  EXPECT_EQ(store::read_journal(job.output + "/journal").entries.size(), 0u);
  const RunSummary s = run_job(job, opts({std::make_shared<FakeDevice>("after", 1)}, 1));
  ASSERT_TRUE(s.merged);
  EXPECT_EQ(s.units_resumed, s.units_total);
  EXPECT_EQ(s.units_ran, 0u);
  expect_stage_rows_equal(rows_of(ref), rows_of(s));
}

TEST(Workers, ThreadSplitBetweenGpuWorkersAndTheCpuWorker) {
  auto check = [](int threads, int gpus, int per_gpu, int extra, int cpu) {
    const ThreadSplit s = split_threads(threads, gpus);
    EXPECT_EQ(s.per_gpu, per_gpu) << threads << " threads, " << gpus << " GPUs";
    EXPECT_EQ(s.first_gpu_extra, extra) << threads << " threads, " << gpus << " GPUs";
    EXPECT_EQ(s.cpu_worker, cpu) << threads << " threads, " << gpus << " GPUs";
    EXPECT_LE(gpus * per_gpu + extra + cpu, std::max(threads, gpus));
  };
  check(16, 0, 0, 0, 16);
  check(16, 1, 4, 0, 12);
  check(16, 4, 3, 0, 4);
  check(16, 8, 1, 0, 8);
  check(2, 1, 1, 1, 0);
  check(4, 1, 2, 0, 2);
  check(1, 1, 1, 0, 0);
  check(3, 2, 1, 1, 0);
}

TEST(Workers, CpuDevicesFromResources) {
  manifest::Resources r;
  r.devices = manifest::DeviceMode::cpu;
  const auto w = make_workers(r, 3);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0]->name(), "cpu (3 threads)");
  EXPECT_FALSE(w[0]->is_gpu());
}

plan::WorkUnit unit(plan::StageKind stage, double ops, std::uint64_t gpu_bytes, std::uint8_t side = 0) {
  plan::WorkUnit u;
  u.stage = stage;
  u.side = side;
  u.ops = ops;
  u.gpu_memory_bytes = gpu_bytes;
  u.memory_bytes = gpu_bytes;
  return u;
}

TEST(Batching, BatchesKeepOneStageAndSideAndRespectTimeCountAndMemory) {
  using plan::StageKind;
  std::vector<plan::WorkUnit> units;
  for (int k = 0; k < 5; ++k) units.push_back(unit(StageKind::nussinov, 1e6, 100, 0));
  for (int k = 0; k < 5; ++k) units.push_back(unit(StageKind::nussinov, 1e6, 100, 1));
  for (int k = 0; k < 10; ++k) units.push_back(unit(StageKind::bpmax, 1e6, 400));
  BatchLimits l;
  l.kind = plan::DeviceKind::gpu;
  l.seconds = 1e9;
  l.max_units = 100;
  EXPECT_EQ(batch_end(units, 0, units.size(), l, 1e9), 5u);    // the queries' folds
  EXPECT_EQ(batch_end(units, 5, units.size(), l, 1e9), 10u);   // the targets'
  EXPECT_EQ(batch_end(units, 10, units.size(), l, 1e9), 20u);  // the pairs
  l.max_units = 3;
  EXPECT_EQ(batch_end(units, 10, units.size(), l, 1e9), 13u);
  l.max_units = 100;
  l.memory_bytes = 1000;  // 2 pairs of 400 bytes fit, not 3
  EXPECT_EQ(batch_end(units, 10, units.size(), l, 1e9), 12u);
  l.memory_bytes = 300;   // none fits: those go to the CPU threads and do not count
  EXPECT_EQ(batch_end(units, 10, units.size(), l, 1e9), 20u);
  l.memory_bytes = 0;
  EXPECT_EQ(batch_end(units, 10, units.size(), l, 0.0), 11u);  // checkpoint after every batch: one unit
  const double one = plan::unit_seconds(units[10], plan::DeviceKind::gpu);
  EXPECT_EQ(batch_end(units, 10, units.size(), l, 2.5 * one), 13u);  // stops once the cap is reached
}

TEST(Batching, GpuMemoryRoutingKeepsUnitOrder) {
  using plan::StageKind;
  std::vector<plan::WorkUnit> units{unit(StageKind::nussinov, 1, 10), unit(StageKind::nussinov, 1, 10),
                                    unit(StageKind::nussinov, 1, 5000), unit(StageKind::nussinov, 1, 10),
                                    unit(StageKind::nussinov, 1, 6000), unit(StageKind::nussinov, 1, 7000)};
  const auto parts = split_by_gpu_memory({StageKind::nussinov, units.data(), units.size()}, 1000);
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_TRUE(parts[0].on_gpu);
  EXPECT_EQ(parts[0].end, 2u);
  EXPECT_FALSE(parts[1].on_gpu);
  EXPECT_EQ(parts[1].end, 3u);
  EXPECT_TRUE(parts[2].on_gpu);
  EXPECT_FALSE(parts[3].on_gpu);
  EXPECT_EQ(parts[3].begin, 4u);
  EXPECT_EQ(parts[3].end, 6u);
}

TEST(MemoryPlan, UnitsOverMaxUnitMemoryAreSkippedDeterministicallyAndListed) {
  TempDir dir;
  manifest::Job job = manifest::load_manifest(write_job(dir, 2, 24));
  job.output = dir.file("full");
  const RunSummary full = run_job(job, opts({std::make_shared<FakeDevice>("f", 2)}, 2));
  const auto all = rows_of(full);

  // A limit between the smallest and the largest BPMax table: the larger pairs are skipped.
  const Inputs in = load_inputs(job);
  const plan::Plan before = plan::make_plan(job, in.query_lengths(), in.target_lengths(), 2);
  std::vector<std::uint64_t> bp;
  for (const auto& u : before.units)
    if (u.stage == plan::StageKind::bpmax) bp.push_back(u.memory_bytes);
  std::sort(bp.begin(), bp.end());
  ASSERT_LT(bp.front(), bp.back());
  job.resources.max_unit_memory = bp[bp.size() / 2];
  const plan::Plan p = plan::make_plan(job, in.query_lengths(), in.target_lengths(), 2);
  const plan::Plan p2 = plan::make_plan(job, in.query_lengths(), in.target_lengths(), 2);
  EXPECT_EQ(p.hash, p2.hash);
  EXPECT_NE(p.hash, before.hash);
  ASSERT_FALSE(p.skipped.empty());
  EXPECT_EQ(p.units.size() + p.skipped.size(), before.units.size());
  for (const auto& k : p.skipped) {
    EXPECT_EQ(k.unit.stage, plan::StageKind::bpmax);
    EXPECT_GT(k.unit.memory_bytes, job.resources.max_unit_memory);
    EXPECT_NE(k.reason.find("more than resources.max_unit_memory"), std::string::npos) << k.reason;
  }

  job.output = dir.file("limited");
  const RunSummary s = run_job(job, opts({std::make_shared<FakeDevice>("f", 2)}, 2));
  EXPECT_EQ(s.units_skipped, p.skipped.size());
  const store::ResultsReader rd(s.results);
  std::size_t pair_rows = 0;
  for (const auto& r : rd.skipped()) {
    if (r.side != "pair") continue;
    ++pair_rows;
    EXPECT_EQ(r.reason.rfind("bpmax: the BPMax tables need ", 0), 0u) << r.reason;
    EXPECT_NE(r.name.find('&'), std::string::npos) << r.name;
  }
  EXPECT_EQ(pair_rows, p.skipped.size());
  const auto got = rd.stage_rows();
  EXPECT_EQ(got.bpmax_scores.size() + p.skipped.size(), all.bpmax_scores.size());
  expect_rows_equal(got.miranda_hits, all.miranda_hits, "miranda/hits");  // other stages untouched
  expect_rows_equal(got.nussinov_targets, all.nussinov_targets, "nussinov/targets");
  // Every remaining score equals the full run's for the same pair.
  std::size_t k = 0;
  for (const auto& r : got.bpmax_scores) {
    while (k < all.bpmax_scores.size() &&
           (all.bpmax_scores[k].query != r.query || all.bpmax_scores[k].target != r.target))
      ++k;
    ASSERT_LT(k, all.bpmax_scores.size());
    EXPECT_TRUE(store::rows_equal(r, all.bpmax_scores[k]));
  }
}

}  // namespace
}  // namespace screen::engine::testing
