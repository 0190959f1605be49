// Defaults of omitted lines, a full manifest read field by field, and stage order.
#include <gtest/gtest.h>

#include "common/sha256.hpp"
#include "manifest/load_manifest.hpp"
#include "tests/manifest/manifest_fixture.hpp"

namespace screen::testing {
namespace {

using manifest::BpmaxTraceback;
using manifest::DeviceMode;
using manifest::StageKind;

using Defaults = ManifestFixture;

TEST_F(Defaults, OmittedLinesTakeTheirDefaults) {
  // Only the required lines: one query set and one stage section with nothing in it.
  const auto job = load("job:\n  name: t\nqueries:\n  - name: q\n    fasta: q.fa\nstages:\n  nussinov:\n");
  EXPECT_EQ(job.version, 1);
  EXPECT_EQ(job.name, "t");
  EXPECT_EQ(job.output, (dir.path() / "results" / "t").string());
  EXPECT_EQ(job.output_as_written, "results/t");
  ASSERT_EQ(job.queries.size(), 1u);
  EXPECT_EQ(job.queries[0].min_length, 1u);
  EXPECT_EQ(job.queries[0].max_length, 0u);
  EXPECT_TRUE(job.targets.empty());

  ASSERT_EQ(job.stage_order, std::vector<StageKind>{StageKind::nussinov});
  EXPECT_TRUE(job.nussinov.enabled);
  EXPECT_EQ(job.nussinov.min_loop, 3);
  EXPECT_EQ(job.nussinov.max_span, 0);
  EXPECT_EQ(job.nussinov.pairs.au, 1);
  EXPECT_EQ(job.nussinov.pairs.cg, 1);
  EXPECT_EQ(job.nussinov.pairs.gu, 1);
  EXPECT_EQ(job.nussinov.pairs.scale, 1);
  EXPECT_TRUE(job.nussinov.traceback);

  EXPECT_FALSE(job.miranda.enabled);
  EXPECT_EQ(job.miranda.score_threshold, 140);
  EXPECT_DOUBLE_EQ(job.miranda.scale, 4.0);
  EXPECT_DOUBLE_EQ(job.miranda.gap_open, -9);
  EXPECT_DOUBLE_EQ(job.miranda.gap_extend, -4);
  EXPECT_FALSE(job.miranda.strict);
  EXPECT_EQ(job.miranda.max_hits_per_pair, 1000);

  EXPECT_FALSE(job.bpmax.enabled);
  EXPECT_EQ(job.bpmax.query_window, 0);
  EXPECT_EQ(job.bpmax.target_window, 0);
  EXPECT_EQ(job.bpmax.pairs.cg, 3);
  EXPECT_EQ(job.bpmax.pairs.au, 2);
  EXPECT_EQ(job.bpmax.pairs.gu, 1);
  EXPECT_EQ(job.bpmax.traceback, BpmaxTraceback::top);
  EXPECT_DOUBLE_EQ(job.bpmax.report_threshold, 0);

  EXPECT_EQ(job.resources.devices, DeviceMode::automatic);
  EXPECT_TRUE(job.resources.gpu_ids.empty());
  EXPECT_EQ(job.resources.cpu_threads, 0);
  EXPECT_DOUBLE_EQ(job.resources.gpu_memory_fraction, 0.9);
  EXPECT_EQ(job.sharding.shards, 0);
  EXPECT_DOUBLE_EQ(job.sharding.target_shard_minutes, 30);
  EXPECT_EQ(job.checkpoint.every_seconds, 300);
  EXPECT_FALSE(job.cluster.present);
  EXPECT_EQ(job.cluster.scheduler, "slurm");
  EXPECT_EQ(job.cluster.time_limit_seconds, 24 * 3600);
}

TEST_F(Defaults, ATargetsSetKeepsItsDefaultsToo) {
  const auto job = load(std::string(kHead) + "  miranda:\n");
  ASSERT_EQ(job.targets.size(), 1u);
  EXPECT_EQ(job.targets[0].name, "t");
  EXPECT_EQ(job.targets[0].min_length, 1u);
  EXPECT_EQ(job.targets[0].max_length, 0u);
  EXPECT_TRUE(job.miranda.enabled);
  EXPECT_FALSE(job.nussinov.enabled);
}

TEST_F(Defaults, PartialPairMapsFollowEachStagesSpec) {
  // nussinov.md: a pair not listed has weight 0. bpmax.md: CG is 3 and AU/GU have defaults.
  const auto job = load(std::string(kHead) +
                        "  nussinov:\n    pairs: {CG: 1}\n"
                        "  bpmax:\n    pairs: {AU: 1, GU: 1.5}\n");
  EXPECT_EQ(job.nussinov.pairs.cg, 1);
  EXPECT_EQ(job.nussinov.pairs.au, 0);
  EXPECT_EQ(job.nussinov.pairs.gu, 0);
  EXPECT_EQ(job.bpmax.pairs.scale, 2);  // half-units
  EXPECT_EQ(job.bpmax.pairs.cg, 6);
  EXPECT_EQ(job.bpmax.pairs.au, 2);
  EXPECT_EQ(job.bpmax.pairs.gu, 3);
}

TEST_F(Defaults, AListedStageWithoutEnabledRunsAndEnabledFalseDoesNot) {
  const auto job = load(std::string(kHead) + "  nussinov:\n    min_loop: 2\n  miranda:\n    enabled: false\n  bpmax: {}\n");
  EXPECT_EQ(job.stage_order, (std::vector<StageKind>{StageKind::nussinov, StageKind::bpmax}));
  EXPECT_TRUE(job.nussinov.enabled);
  EXPECT_FALSE(job.miranda.enabled);
  EXPECT_FALSE(job.enabled(StageKind::miranda));
  EXPECT_TRUE(job.enabled(StageKind::bpmax));
}

TEST_F(Defaults, AStageMayBeJustTrueOrFalse) {
  const auto job = load(std::string(kHead) + "  bpmax: true\n  nussinov: false\n  miranda: on\n");
  EXPECT_EQ(job.stage_order, (std::vector<StageKind>{StageKind::bpmax, StageKind::miranda}));
  EXPECT_EQ(job.bpmax.target_window, 0);
  EXPECT_FALSE(job.nussinov.enabled);
}

TEST_F(Defaults, StagesRunInManifestOrder) {
  auto job = load(std::string(kHead) + "  bpmax:\n  nussinov:\n  miranda:\n");
  EXPECT_EQ(job.stage_order, (std::vector<StageKind>{StageKind::bpmax, StageKind::nussinov, StageKind::miranda}));
  job = load(std::string(kHead) + "  miranda:\n  bpmax:\n");
  EXPECT_EQ(job.stage_order, (std::vector<StageKind>{StageKind::miranda, StageKind::bpmax}));
}

TEST_F(Defaults, EveryFieldIsRead) {
  const auto job = load(R"(version: 1
job:
  name: full.job-1
  output: out/here
queries:
  - name: q
    fasta: q.fa
    min_length: 18
    max_length: 25
targets:
  - name: t
    fasta: t.fa
    min_length: 20
    max_length: 250000
stages:
  nussinov:
    enabled: yes
    min_loop: 4
    max_span: 200
    pairs: {AU: 2, CG: 3, GU: 0.5}
    traceback: false
  miranda:
    score_threshold: 120
    scale: 2.5
    gap_open: -8
    gap_extend: -2.5
    strict: true
    max_hits_per_pair: 0
  bpmax:
    query_window: 20
    target_window: 128
    pairs: {CG: 3, AU: 1, GU: 1.5}
    traceback: all
    report_threshold: 12.5
resources:
  devices: [0, 2]
  cpu_threads: 8
  gpu_memory_fraction: 0.75
sharding:
  shards: 12
  target_shard_minutes: 7.5
checkpoint:
  every: 1h30m
cluster:
  scheduler: slurm
  partition: gpu-long
  gpus_per_task: 2
  time_limit: "2-12:00:00"
  max_concurrent: 16
  extra_sbatch: ["--account=rna", "--qos=high"]
)");
  EXPECT_EQ(job.name, "full.job-1");
  EXPECT_EQ(job.output, (dir.path() / "out" / "here").string());
  EXPECT_EQ(job.queries[0].min_length, 18u);
  EXPECT_EQ(job.queries[0].max_length, 25u);
  EXPECT_EQ(job.targets[0].max_length, 250000u);
  EXPECT_EQ(job.nussinov.min_loop, 4);
  EXPECT_EQ(job.nussinov.max_span, 200);
  EXPECT_EQ(job.nussinov.pairs.scale, 2);
  EXPECT_EQ(job.nussinov.pairs.au, 4);
  EXPECT_EQ(job.nussinov.pairs.cg, 6);
  EXPECT_EQ(job.nussinov.pairs.gu, 1);
  EXPECT_FALSE(job.nussinov.traceback);
  EXPECT_EQ(job.miranda.score_threshold, 120);
  EXPECT_DOUBLE_EQ(job.miranda.scale, 2.5);
  EXPECT_DOUBLE_EQ(job.miranda.gap_open, -8);
  EXPECT_DOUBLE_EQ(job.miranda.gap_extend, -2.5);
  EXPECT_TRUE(job.miranda.strict);
  EXPECT_EQ(job.miranda.max_hits_per_pair, 0);
  EXPECT_EQ(job.bpmax.query_window, 20);
  EXPECT_EQ(job.bpmax.target_window, 128);
  EXPECT_EQ(job.bpmax.pairs.scale, 2);
  EXPECT_EQ(job.bpmax.pairs.gu, 3);
  EXPECT_EQ(job.bpmax.traceback, BpmaxTraceback::all);
  EXPECT_DOUBLE_EQ(job.bpmax.report_threshold, 12.5);
  EXPECT_EQ(job.stage_order, (std::vector<StageKind>{StageKind::nussinov, StageKind::miranda, StageKind::bpmax}));
  EXPECT_EQ(job.resources.devices, DeviceMode::gpus);
  EXPECT_EQ(job.resources.gpu_ids, (std::vector<int>{0, 2}));
  EXPECT_EQ(job.resources.cpu_threads, 8);
  EXPECT_DOUBLE_EQ(job.resources.gpu_memory_fraction, 0.75);
  EXPECT_EQ(job.sharding.shards, 12);
  EXPECT_DOUBLE_EQ(job.sharding.target_shard_minutes, 7.5);
  EXPECT_EQ(job.checkpoint.every_seconds, 5400);
  EXPECT_TRUE(job.cluster.present);
  EXPECT_EQ(job.cluster.partition, "gpu-long");
  EXPECT_EQ(job.cluster.gpus_per_task, 2);
  EXPECT_EQ(job.cluster.time_limit, "2-12:00:00");
  EXPECT_EQ(job.cluster.time_limit_seconds, (2 * 24 + 12) * 3600);
  EXPECT_EQ(job.cluster.max_concurrent, 16);
  EXPECT_EQ(job.cluster.extra_sbatch, (std::vector<std::string>{"--account=rna", "--qos=high"}));
}

TEST_F(Defaults, MaxUnitMemoryAndCheckpointAfterEveryBatch) {
  auto job = load(std::string(kHead) + "  nussinov:\n");
  EXPECT_EQ(job.resources.max_unit_memory, 64ull << 30);
  EXPECT_EQ(job.checkpoint.every_seconds, 300);
  job = load(std::string(kHead) + "  nussinov:\nresources:\n  max_unit_memory: 100GB\ncheckpoint:\n  every: 0\n");
  EXPECT_EQ(job.resources.max_unit_memory, 100'000'000'000ull);
  EXPECT_EQ(job.checkpoint.every_seconds, 0);
}

TEST_F(Defaults, DevicesCpuAndAutoWords) {
  auto job = load(std::string(kHead) + "  nussinov:\nresources:\n  devices: cpu\n  cpu_threads: auto\n");
  EXPECT_EQ(job.resources.devices, DeviceMode::cpu);
  EXPECT_EQ(job.resources.cpu_threads, 0);
  job = load(std::string(kHead) + "  nussinov:\nresources:\n  devices: auto\nsharding:\n  shards: auto\n");
  EXPECT_EQ(job.resources.devices, DeviceMode::automatic);
  EXPECT_EQ(job.sharding.shards, 0);
}

TEST_F(Defaults, TheJobKeepsTheManifestTextAsRead) {
  const std::string text = std::string(kHead) + "  nussinov:   # comment kept\n";
  const auto job = load(text);
  EXPECT_EQ(job.manifest_text, text);
  EXPECT_EQ(job.manifest_path, manifest_path());
  EXPECT_EQ(job.manifest_sha256, sha256_hex(text));
  EXPECT_EQ(job.manifest_sha256.size(), 64u);
  EXPECT_NE(load(text + "\n").manifest_sha256, job.manifest_sha256);  // any change to the text shows
}

// The results' hash ignores how the work is run (devices, threads, GPU memory share, checkpoint,
// cluster), comments and layout; every other change counts, max_unit_memory included.
TEST_F(Defaults, TheResultsHashIgnoresOnlyHowTheWorkIsRun) {
  const std::string base = std::string(kHead) + "  nussinov:\n    min_loop: 3\nresources:\n  devices: cpu\n";
  const std::string want = load(base).results_sha256;
  EXPECT_EQ(want.size(), 64u);
  for (const std::string& same :
       {std::string(kHead) + "  nussinov:   # a comment\n      min_loop:    3\nresources:\n  devices: [0, 1]\n",
        std::string(kHead) + "  nussinov:\n    min_loop: 3\n",
        std::string(kHead) + "  nussinov:\n    min_loop: 3\nresources: {devices: auto, cpu_threads: 4, "
                             "gpu_memory_fraction: 0.5}\ncheckpoint:\n  every: 0\ncluster:\n  partition: gpu\n"}) {
    EXPECT_EQ(load(same).results_sha256, want) << same;
  }
  for (const std::string& other :
       {std::string(kHead) + "  nussinov:\n    min_loop: 4\nresources:\n  devices: cpu\n",
        std::string(kHead) + "  nussinov:\n    min_loop: 3\n    traceback: true\nresources:\n  devices: cpu\n",
        base + "  max_unit_memory: 1GiB\n", base + "sharding:\n  shards: 3\n"}) {
    EXPECT_NE(load(other).results_sha256, want) << other;
  }
}

}  // namespace
}  // namespace screen::testing
