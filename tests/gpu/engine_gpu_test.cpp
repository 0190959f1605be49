// The engine's GPU device against its CPU pool: the same small job (all three stages) run with
// resources.devices cpu and auto (any GPU of the machine) must give identical results.h5 stage
// tables, row for row; the shards table records which device ran: only listed GPUs for a list
// such as [0] or [1]. A listed GPU that does not exist is refused.
// Several workers (every GPU plus a CPU worker) and a GPU memory budget too small for any unit (all
// units routed to the GPU workers' CPU threads) give the same tables too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "engine/device_set.hpp"
#include "engine/engine.hpp"
#include "gpu/device_info.hpp"
#include "manifest/load_manifest.hpp"
#include "store/results_reader.hpp"
#include "tests/engine/engine_test_util.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace screen::engine::testing {
namespace {

RunOptions opts() { return quiet_options(2); }

std::string run_on(manifest::Job job, manifest::DeviceMode mode, std::vector<int> gpu_ids, const std::string& output) {
  job.resources.devices = mode;
  job.resources.gpu_ids = std::move(gpu_ids);
  job.output = output;
  const RunSummary s = run_job(job, opts());
  EXPECT_TRUE(s.merged);
  EXPECT_EQ(s.ran.size(), s.shards_total);
  return s.results;
}

// `gpu_prefix` is what every device a GPU run's shard names starts with: "gpu 0 (" for [0], "gpu "
// for auto (on a machine with several GPUs a shard may go to any of them).
void expect_same_results(const std::string& cpu_path, const std::string& gpu_path, const std::string& gpu_prefix) {
  ASSERT_FALSE(cpu_path.empty());
  ASSERT_FALSE(gpu_path.empty());
  const store::ResultsReader cpu(cpu_path), gpu(gpu_path);
  for (const auto k : {store::StageKind::nussinov, store::StageKind::miranda, store::StageKind::bpmax}) {
    EXPECT_TRUE(cpu.has_stage(k));
    EXPECT_TRUE(gpu.has_stage(k));
  }
  const store::StageRows a = cpu.stage_rows(), b = gpu.stage_rows();
  EXPECT_FALSE(a.nussinov_queries.empty());
  EXPECT_FALSE(a.nussinov_targets.empty());
  EXPECT_FALSE(a.miranda_hits.empty());  // the planted sites are found
  EXPECT_FALSE(a.bpmax_scores.empty());
  expect_stage_rows_equal(a, b);
  for (const auto& s : cpu.shards()) EXPECT_EQ(s.device.rfind("cpu (", 0), 0u) << s.device;
  for (const auto& s : gpu.shards()) {
    // A shard taken by several workers names each, separated by "; ".
    std::size_t from = 0;
    while (from <= s.device.size()) {
      const std::size_t end = std::min(s.device.find("; ", from), s.device.size());
      EXPECT_EQ(s.device.compare(from, gpu_prefix.size(), gpu_prefix), 0) << s.device;
      from = end + 2;
    }
  }
}

TEST(EngineGpu, AutoOnTheGpuEqualsTheCpuPool) {
  SCREEN_REQUIRE_GPU();
  for (const auto& [seed, shards] : {std::pair<std::uint64_t, int>{1, 1}, {2, 3}, {3, 2}}) {
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(shards) + " shards");
    TempDir dir;
    const manifest::Job job = manifest::load_manifest(write_job(dir, shards, seed));
    const std::string cpu = run_on(job, manifest::DeviceMode::cpu, {}, dir.file("cpu"));
    const std::string gpu = run_on(job, manifest::DeviceMode::automatic, {}, dir.file("gpu"));
    expect_same_results(cpu, gpu, "gpu ");
  }
}

TEST(EngineGpu, ListedGpuEqualsTheCpuPool) {
  SCREEN_REQUIRE_GPU();
  TempDir dir;
  const manifest::Job job = manifest::load_manifest(write_job(dir, 2, 5));
  const std::string cpu = run_on(job, manifest::DeviceMode::cpu, {}, dir.file("cpu"));
  const std::string gpu = run_on(job, manifest::DeviceMode::gpus, {0}, dir.file("gpu"));
  expect_same_results(cpu, gpu, "gpu 0 (");
}

TEST(EngineGpu, TheSecondGpuAloneEqualsTheCpuPool) {
  SCREEN_REQUIRE_GPU();
  if (gpu::gpu_count() < 2) GTEST_SKIP() << "one GPU here: devices [1] needs a second";
  TempDir dir;
  const manifest::Job job = manifest::load_manifest(write_job(dir, 2, 6));
  const std::string cpu = run_on(job, manifest::DeviceMode::cpu, {}, dir.file("cpu"));
  const std::string gpu = run_on(job, manifest::DeviceMode::gpus, {1}, dir.file("gpu"));
  expect_same_results(cpu, gpu, "gpu 1 (");
}

TEST(EngineGpu, AMissingListedGpuIsAResourceError) {
  SCREEN_REQUIRE_GPU();
  TempDir dir;
  manifest::Job job = manifest::load_manifest(write_job(dir));
  const int count = gpu::gpu_count();
  job.resources.devices = manifest::DeviceMode::gpus;
  job.resources.gpu_ids = {count};
  job.output = dir.file("out");
  try {
    run_job(job, opts());
    FAIL() << "expected a ResourceError";
  } catch (const ResourceError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("GPU " + std::to_string(count)), std::string::npos) << what;
    EXPECT_NE(what.find("has " + std::to_string(count)), std::string::npos) << what;
  }
}

TEST(EngineGpu, EveryGpuGetsAWorkerAndTheThreadsLeftACpuWorker) {
  SCREEN_REQUIRE_GPU();
  manifest::Resources r;
  r.devices = manifest::DeviceMode::automatic;
  const int gpus = gpu::gpu_count();
  const int threads = 6 * (gpus + 1);
  const auto workers = make_workers(r, threads);
  const ThreadSplit split = split_threads(threads, gpus);
  ASSERT_EQ(workers.size(), static_cast<std::size_t>(gpus) + (split.cpu_worker > 0 ? 1 : 0));
  for (int k = 0; k < gpus; ++k) {
    EXPECT_TRUE(workers[static_cast<std::size_t>(k)]->is_gpu());
    EXPECT_EQ(workers[static_cast<std::size_t>(k)]->name().rfind("gpu " + std::to_string(k) + " (", 0), 0u);
  }
  if (split.cpu_worker > 0) {
    EXPECT_FALSE(workers.back()->is_gpu());
  }
}

TEST(EngineGpu, GpuWorkersPlusACpuWorkerEqualTheCpuPool) {
  SCREEN_REQUIRE_GPU();
  TempDir dir;
  manifest::Job job = manifest::load_manifest(write_job(dir, 8, 7));
  job.output = dir.file("cpu");
  const RunSummary cpu = run_job(job, opts());
  job.resources.devices = manifest::DeviceMode::automatic;
  job.output = dir.file("all");
  RunOptions o = opts();
  o.threads = 8 * (gpu::gpu_count() + 1);
  const RunSummary all = run_job(job, o);
  ASSERT_TRUE(all.merged);
  EXPECT_EQ(all.workers.size(), static_cast<std::size_t>(gpu::gpu_count()) + 1);
  bool any_gpu = false;
  for (const auto& [id, name] : all.devices) any_gpu = any_gpu || name.rfind("gpu ", 0) == 0;
  EXPECT_TRUE(any_gpu);
  expect_stage_rows_equal(store::ResultsReader(cpu.results).stage_rows(),
                          store::ResultsReader(all.results).stage_rows());
}

TEST(EngineGpu, UnitsOverTheGpuBudgetRunOnTheWorkersCpuThreads) {
  SCREEN_REQUIRE_GPU();
  TempDir dir;
  manifest::Job job = manifest::load_manifest(write_job(dir, 2, 8));
  const std::string cpu = run_on(job, manifest::DeviceMode::cpu, {}, dir.file("cpu"));
  job.resources.gpu_memory_fraction = 1e-12;  // a budget of a few bytes: no unit fits
  const std::string gpu = run_on(job, manifest::DeviceMode::gpus, {0}, dir.file("gpu"));
  expect_same_results(cpu, gpu, "gpu 0 (");
}

TEST(EngineGpu, CheckpointedGpuRunEqualsTheCpuPool) {
  SCREEN_REQUIRE_GPU();
  TempDir dir;
  manifest::Job job = manifest::load_manifest(write_job(dir, 1, 9));
  const std::string cpu = run_on(job, manifest::DeviceMode::cpu, {}, dir.file("cpu"));
  job.checkpoint.every_seconds = 0;  // one unit per batch, a checkpoint after each
  const std::string gpu = run_on(job, manifest::DeviceMode::gpus, {0}, dir.file("gpu"));
  expect_same_results(cpu, gpu, "gpu 0 (");
}

}  // namespace
}  // namespace screen::engine::testing
