// The engine end to end on a small job: results against the stage batch APIs, shard-count
// independence, resume after a lost or damaged part, refusals (changed input, held lock), --shard,
// a stop request, and the re-merge.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>

#include "common/error.hpp"
#include "engine/engine.hpp"
#include "engine/inputs.hpp"
#include "engine_test_util.hpp"
#include "plan/stage_params.hpp"
#include "stages/bpmax/interact.hpp"
#include "stages/miranda/align_batch.hpp"
#include "stages/nussinov/fold.hpp"
#include "store/journal.hpp"
#include "engine/shard_lock.hpp"
#include "store/lock.hpp"

namespace screen::engine::testing {
namespace {

RunOptions opts(int shards = 0) { return quiet_options(2, shards); }

// `text` with its one `from` replaced by `to` (the test's manifest holds each exactly once).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

store::StageRows results_rows(const std::string& output) {
  return store::ResultsReader(output + "/results.h5").stage_rows();
}

TEST(Engine, EndToEndMatchesTheStageBatchApis) {
  TempDir dir;
  const manifest::Job job = manifest::load_manifest(write_job(dir));
  const RunSummary s = run_job(job, opts());
  EXPECT_TRUE(s.merged);
  EXPECT_EQ(s.ran.size(), s.shards_total);
  ASSERT_FALSE(s.results.empty());

  const store::ResultsReader rd(s.results);
  EXPECT_TRUE(rd.has_stage(store::StageKind::nussinov));
  EXPECT_TRUE(rd.has_stage(store::StageKind::miranda));
  EXPECT_TRUE(rd.has_stage(store::StageKind::bpmax));
  ASSERT_EQ(rd.queries().size(), 5u);
  ASSERT_EQ(rd.targets().size(), 4u);
  ASSERT_EQ(rd.skipped().size(), 1u);
  EXPECT_EQ(rd.skipped()[0].name, "tooshort");
  EXPECT_EQ(rd.queries()[3].index_in_file, 4u);  // the skipped record keeps its place in the file

  // The same computations through the stage batch APIs directly.
  const Inputs in = load_inputs(job);
  const plan::StageParams p = plan::stage_params(job);
  store::StageRows want;
  const auto fq = nussinov::fold_batch(in.queries, p.nussinov, true);
  for (std::size_t i = 0; i < fq.size(); ++i) want.nussinov_queries.push_back(store::nussinov_row(i, fq[i]));
  const auto ft = nussinov::fold_batch(in.targets, p.nussinov, true);
  for (std::size_t i = 0; i < ft.size(); ++i) want.nussinov_targets.push_back(store::nussinov_row(i, ft[i]));
  for (const auto& r : miranda::align_batch(in.queries, in.targets, p.miranda))
    store::append_miranda_rows(r.query_index, r.target_index, r, want.miranda_hits, want.miranda_pairs);
  for (const auto& r : bpmax::interact_batch(in.queries, in.targets, p.bpmax, bpmax::TracebackMode::all())) {
    want.bpmax_scores.push_back(store::bpmax_score_row(r.query_index, r.target_index, r.site));
    ASSERT_TRUE(r.site.structure);
    want.bpmax_structures.push_back(
        store::bpmax_structure_row(r.query_index, r.target_index, r.site.score, *r.site.structure));
  }
  std::sort(want.miranda_hits.begin(), want.miranda_hits.end(), store::row_less<store::MirandaHitRow>);
  EXPECT_EQ(want.bpmax_scores.size(), 20u);
  EXPECT_FALSE(want.miranda_hits.empty());  // the planted sites are found
  expect_stage_rows_equal(rd.stage_rows(), want);
}

TEST(Engine, OneAndFourShardsGiveIdenticalDatasets) {
  TempDir dir;
  manifest::Job job = manifest::load_manifest(write_job(dir));
  job.output = dir.file("one");
  const RunSummary one = run_job(job, opts(1));
  job.output = dir.file("four");
  const RunSummary four = run_job(job, opts(4));
  EXPECT_EQ(one.shards_total, 1u);
  EXPECT_EQ(four.shards_total, 4u);
  EXPECT_EQ(four.ran.size(), 4u);
  const auto a = results_rows(dir.file("one")), b = results_rows(dir.file("four"));
  EXPECT_FALSE(a.bpmax_scores.empty());
  expect_stage_rows_equal(a, b);
  EXPECT_EQ(store::ResultsReader(dir.file("four") + "/results.h5").shards().size(), 4u);
}

TEST(Engine, ResumeRecomputesOnlyTheLostOrDamagedShard) {
  TempDir dir;
  const manifest::Job job = manifest::load_manifest(write_job(dir, 4));
  const RunSummary first = run_job(job, opts());
  ASSERT_EQ(first.ran.size(), 4u);
  const auto reference = results_rows(job.output);

  // Nothing to do: every part verifies.
  const RunSummary again = run_job(job, opts());
  EXPECT_TRUE(again.ran.empty());
  EXPECT_EQ(again.reused.size(), 4u);

  // A lost part: only its shard runs again.
  fs::remove(job.output + "/" + part_name(2));
  const RunSummary lost = run_job(job, opts());
  EXPECT_EQ(lost.ran, std::vector<std::int64_t>{2});
  EXPECT_EQ(lost.recomputed, std::vector<std::int64_t>{2});
  EXPECT_TRUE(lost.merged);
  expect_stage_rows_equal(results_rows(job.output), reference);

  // A damaged part (its middle three quarters overwritten): likewise.
  const std::string part1 = job.output + "/" + part_name(1);
  {
    const auto size = fs::file_size(part1);
    std::fstream f(part1, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size / 8));
    const std::string junk(size * 3 / 4, '\x5a');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  const auto before = fs::last_write_time(job.output + "/" + part_name(0));
  const RunSummary damaged = run_job(job, opts());
  EXPECT_EQ(damaged.ran, std::vector<std::int64_t>{1});
  EXPECT_EQ(fs::last_write_time(job.output + "/" + part_name(0)), before);
  expect_stage_rows_equal(results_rows(job.output), reference);

  // A truncated part: likewise.
  fs::resize_file(job.output + "/" + part_name(3), 100);
  EXPECT_EQ(run_job(job, opts()).ran, std::vector<std::int64_t>{3});
  expect_stage_rows_equal(results_rows(job.output), reference);
}

TEST(Engine, ChangedInputIsRefusedUnlessRestart) {
  TempDir dir;
  const manifest::Job job = manifest::load_manifest(write_job(dir, 2));
  run_job(job, opts());
  // The targets change (one more record).
  {
    std::ofstream out(dir.file("targets.fa"), std::ios::app);
    out << ">t9\nACGUACGUACGUACGUACGUACGUACGUAAAACCCGGGUUU\n";
  }
  const manifest::Job changed = manifest::load_manifest(dir.file("job.yaml"));
  EXPECT_THROW(run_job(changed, opts()), ConflictError);
  // The state is untouched by the refusal.
  EXPECT_TRUE(fs::exists(job.output + "/" + part_name(0)));
  RunOptions o = opts();
  o.restart = true;
  const RunSummary s = run_job(changed, o);
  EXPECT_EQ(s.ran.size(), s.shards_total);
  EXPECT_EQ(store::ResultsReader(s.results).targets().size(), 5u);

  // A manifest changed where it decides results too (a stage parameter).
  const std::string text = manifest::load_manifest(dir.file("job.yaml")).manifest_text;
  spit(dir.file("job.yaml"), replaced(text, "score_threshold: 120", "score_threshold: 130"));
  EXPECT_THROW(run_job(manifest::load_manifest(dir.file("job.yaml")), opts()), ConflictError);
}

// How the work is run is not what it computes: with other devices, threads, checkpoint interval,
// cluster settings, comments and layout, the finished run is taken as it is (nothing recomputed),
// and a run stopped part-way resumes from its kept shards to the same results.
TEST(Engine, RunSettingsMayChangeBetweenAStopAndItsResumption) {
  TempDir dir;
  const manifest::Job job = manifest::load_manifest(write_job(dir, 3));
  const RunSummary first = run_job(job, opts());
  const store::StageRows reference = results_rows(job.output);
  std::string text = replaced(job.manifest_text, "resources:\n  devices: cpu\n  cpu_threads: 2\n",
                              "# run settings changed\nresources:\n  devices: auto\n  cpu_threads: 1\n"
                              "  gpu_memory_fraction: 0.5\n");
  text += "checkpoint:\n  every: 30s\ncluster:\n  partition: gpu\n";
  spit(dir.file("job.yaml"), text);
  const manifest::Job changed = manifest::load_manifest(dir.file("job.yaml"));
  EXPECT_NE(changed.manifest_sha256, job.manifest_sha256);
  EXPECT_EQ(changed.results_sha256, job.results_sha256);
  RunOptions cpu_only = opts();
  const RunSummary again = run_job(changed, cpu_only);
  EXPECT_TRUE(again.ran.empty());
  EXPECT_EQ(again.reused.size(), first.ran.size());

  // Stopped part-way: two of the three parts gone, the journal keeps shard 0's.
  fs::remove(job.output + "/results.h5");
  fs::remove(job.output + "/" + part_name(1));
  fs::remove(job.output + "/" + part_name(2));
  manifest::Job on_cpu = changed;
  on_cpu.resources.devices = manifest::DeviceMode::cpu;  // this test's machine may have a GPU
  RunSummary resumed = run_job(on_cpu, cpu_only);
  std::sort(resumed.ran.begin(), resumed.ran.end());
  EXPECT_EQ(resumed.ran, (std::vector<std::int64_t>{1, 2}));
  expect_stage_rows_equal(results_rows(job.output), reference);

  // A changed max_unit_memory counts: it decides which units are skipped.
  spit(dir.file("job.yaml"), replaced(text, "  cpu_threads: 1\n", "  cpu_threads: 1\n  max_unit_memory: 1GiB\n"));
  EXPECT_NE(manifest::load_manifest(dir.file("job.yaml")).results_sha256, job.results_sha256);
}

TEST(Engine, ConcurrentRunsOnOneOutputConflict) {
  TempDir dir;
  const manifest::Job job = manifest::load_manifest(write_job(dir));
  fs::create_directories(job.output);
  store::OutputLock held(job.output);
  try {
    run_job(job, opts());
    FAIL() << "a second run took the output folder";
  } catch (const ConflictError& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(::getpid())), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(job.output + "/journal"));
}

TEST(Engine, ShardTasksShareTheFolderButNotAShard) {
  TempDir dir;
  const manifest::Job job = manifest::load_manifest(write_job(dir, 3));
  fs::create_directories(job.output);
  RunOptions o = opts();
  o.shard = 0;
  {
    // Another task is running shard 1: shard 0 runs; shard 1 and a full run are refused.
    ShardLock other(job.output, 1);
    EXPECT_EQ(run_job(job, o).ran, std::vector<std::int64_t>{0});
    o.shard = 1;
    EXPECT_THROW(run_job(job, o), ConflictError);
    EXPECT_THROW(run_job(job, opts()), ConflictError);
    EXPECT_THROW(ShardLock(job.output, 1), ConflictError);
  }
  {
    // A full run holds the folder: no shard task starts.
    store::OutputLock full(job.output);
    o.shard = 2;
    EXPECT_THROW(run_job(job, o), ConflictError);
  }
  o.restart = true;
  EXPECT_THROW(run_job(job, o), UsageError);
  // Shard tasks one after another, then the merge.
  o.restart = false;
  for (std::int64_t k : {1, 2}) {
    o.shard = k;
    EXPECT_EQ(run_job(job, o).ran, std::vector<std::int64_t>{k});
  }
  EXPECT_EQ(store::read_journal(job.output + "/journal").entries.size(), 3u);
  EXPECT_EQ(merge_output(job, "test"), job.output + "/results.h5");
  const auto rows = results_rows(job.output);
  EXPECT_EQ(rows.bpmax_scores.size(), 20u);
}

TEST(Engine, SingleShardIsIdempotentAndDoesNotMerge) {
  TempDir dir;
  const manifest::Job job = manifest::load_manifest(write_job(dir, 3));
  RunOptions o = opts();
  o.shard = 1;
  const RunSummary s1 = run_job(job, o);
  EXPECT_EQ(s1.ran, std::vector<std::int64_t>{1});
  EXPECT_FALSE(s1.merged);
  EXPECT_FALSE(fs::exists(job.output + "/results.h5"));
  const auto t = fs::last_write_time(job.output + "/" + part_name(1));
  const RunSummary s2 = run_job(job, o);
  EXPECT_TRUE(s2.ran.empty());
  EXPECT_EQ(fs::last_write_time(job.output + "/" + part_name(1)), t);
  EXPECT_EQ(store::read_journal(job.output + "/journal").entries.size(), 1u);
  o.shard = 3;
  EXPECT_THROW(run_job(job, o), UsageError);

  // merge refuses while shards are missing; status counts them.
  EXPECT_THROW(merge_output(job, "test"), ConflictError);
  const StatusReport st = job_status(job.output);
  EXPECT_EQ(st.shards_total, 3u);
  EXPECT_EQ(st.shards_done, 1u);
  EXPECT_EQ(st.pending, (std::vector<std::int64_t>{0, 2}));
  EXPECT_FALSE(st.results_present);

  // The rest, then a re-merge gives the same file contents.
  const RunSummary rest = run_job(job, opts());
  EXPECT_EQ(rest.ran, (std::vector<std::int64_t>{0, 2}));
  EXPECT_TRUE(rest.merged);
  const auto rows = results_rows(job.output);
  fs::remove(job.output + "/results.h5");
  EXPECT_EQ(merge_output(job, "test"), job.output + "/results.h5");
  expect_stage_rows_equal(results_rows(job.output), rows);
  const StatusReport done = job_status(job.output);
  EXPECT_EQ(done.shards_done, 3u);
  EXPECT_EQ(done.units_done, done.units_total);
  EXPECT_TRUE(done.results_present);
  EXPECT_GT(done.units_per_second, 0.0);
}

TEST(Engine, StopRequestLeavesAResumableFolder) {
  TempDir dir;
  const manifest::Job job = manifest::load_manifest(write_job(dir, 3));
  std::atomic<int> stop{SIGTERM};
  RunOptions o = opts();
  o.stop = &stop;
  ASSERT_NO_FATAL_FAILURE(expect_stopped(job, o, ExitCode::terminated));
  EXPECT_TRUE(store::read_journal(job.output + "/journal").entries.empty());
  for (const auto& e : fs::directory_iterator(job.output))
    EXPECT_EQ(e.path().filename().string().rfind("part-", 0), std::string::npos) << e.path();
  stop = SIGINT;
  ASSERT_NO_FATAL_FAILURE(expect_stopped(job, o, ExitCode::interrupted));
  const RunSummary s = run_job(job, opts());
  EXPECT_EQ(s.ran.size(), 3u);
  EXPECT_TRUE(s.merged);
}

}  // namespace
}  // namespace screen::engine::testing
