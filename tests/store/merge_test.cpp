// Merge: results.h5 from parts is the same however the rows were sharded; a reader gets every table
// back; bad parts are refused; h5dump reads the file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/sha256.hpp"
#include "common/version.hpp"
#include "manifest/job.hpp"
#include "store/durable.hpp"
#include "store/merge.hpp"
#include "store/part_file.hpp"
#include "store/results_reader.hpp"
#include "store_test_util.hpp"

namespace screen::store {
namespace {

using testing::TempDir;

constexpr std::size_t kQueries = 6, kTargets = 7;

manifest::Job make_job() {
  manifest::Job job;
  job.name = "merge-test";
  job.manifest_text = "version: 1\nname: merge-test\n# \xce\xb1\n";
  job.manifest_sha256 = sha256_hex(job.manifest_text);
  job.results_sha256 = sha256_hex("results of " + job.manifest_text);  // what parts are checked against
  job.nussinov.enabled = job.miranda.enabled = job.bpmax.enabled = true;
  job.nussinov.pairs = {3, 2, 1, 2};  // CG 1.5, AU 1, GU 0.5
  job.bpmax.traceback = manifest::BpmaxTraceback::all;
  job.bpmax.report_threshold = 4.5;
  job.miranda.score_threshold = 150;
  job.stage_order = {StageKind::miranda, StageKind::bpmax, StageKind::nussinov};
  return job;
}

MergeSpec make_spec(const manifest::Job& job) {
  MergeSpec spec;
  spec.job = &job;
  spec.inputs = {{"query", "mirs", "/data/mirs.fa", sha256_hex("mirs")}, {"target", "utrs", "/data/utrs.fa.gz", sha256_hex("utrs")}};
  for (std::size_t i = 0; i < kQueries; ++i) spec.queries.push_back({"mirs", "mir-" + std::to_string(i), 22, i + 1});
  for (std::size_t i = 0; i < kTargets; ++i) spec.targets.push_back({"utrs", "utr-" + std::to_string(i), 900 + i, i});
  spec.skipped = {{"query", "mirs", "mir-short", 0, 5, "shorter than min_length 18"}};
  spec.run = {"screen run job.yaml", {"node1"}, {"cpu"}, "2024-05-01T10:00:00Z"};
  return spec;
}

std::vector<std::string> input_shas(const MergeSpec& spec) {
  std::vector<std::string> v;
  for (const auto& i : spec.inputs) v.push_back(i.sha256);
  return v;
}

// Writes one part for units [b, e) of the sample, its rows shuffled within each table.
// (declared_begin, declared_end): the unit range written in the part, when not [b, e).
std::string write_shard(const TempDir& dir, const testing::Sample& s, const MergeSpec& spec, std::int64_t id,
                        std::size_t b, std::size_t e, std::mt19937_64& rng, std::size_t declared_begin = 0,
                        std::size_t declared_end = 0) {
  const std::string path = dir.file("part-" + std::to_string(id) + ".h5");
  PartInfo info;
  info.shard_id = id;
  info.unit_begin = declared_end > 0 ? declared_begin : b;
  info.unit_end = declared_end > 0 ? declared_end : e;
  info.manifest_sha256 = spec.job->results_sha256;
  info.input_sha256 = input_shas(spec);
  info.stages = spec.job->stage_order;
  StageRows rows = s.rows(b, e);
  for_each_stage_table(rows, [&](StageKind, const char*, const char*, auto& v) { std::shuffle(v.begin(), v.end(), rng); });
  PartWriter w(path, info);
  w.append_nussinov(Side::query, rows.nussinov_queries);
  w.append_nussinov(Side::target, rows.nussinov_targets);
  w.append(rows.miranda_hits);
  w.append(rows.miranda_pairs);
  w.append(rows.bpmax_scores);
  w.append(rows.bpmax_structures);
  w.set_timing(1.5 * static_cast<double>(id + 1), "cpu", "node" + std::to_string(id));
  w.commit();
  return path;
}

template <class Row>
void sort_rows(std::vector<Row>& v) {
  std::sort(v.begin(), v.end(), [](const Row& a, const Row& b) { return row_less(a, b); });
}

class Merge : public ::testing::Test {
 protected:
  Merge() : job_(make_job()), spec_(make_spec(job_)), sample_(testing::make_sample(kQueries, kTargets, 7)) {}
  TempDir dir_;
  manifest::Job job_;
  MergeSpec spec_;
  testing::Sample sample_;
};

TEST_F(Merge, OnePartOrFourShuffledPartsGiveIdenticalTables) {
  std::mt19937_64 rng(99);
  MergeSpec one = spec_;
  one.parts = {write_shard(dir_, sample_, spec_, 0, 0, sample_.units(), rng)};
  const std::string one_path = dir_.file("one.h5");
  const MergeSummary s1 = merge_results(one, one_path);
  EXPECT_EQ(s1.parts, 1u);

  // Four shards of uneven size, written in shuffled row order, given to merge in shuffled order.
  const std::size_t n = sample_.units();
  const std::size_t cuts[5] = {0, 3, n / 2, n / 2 + 5, n};
  MergeSpec four = spec_;
  for (int k = 0; k < 4; ++k) four.parts.push_back(write_shard(dir_, sample_, spec_, 10 + k, cuts[k], cuts[k + 1], rng));
  std::shuffle(four.parts.begin(), four.parts.end(), rng);
  four.other_shards = {{20, n, n, "failed", 0.0, "cuda:1", "node9", "", ""}};
  const std::string four_path = dir_.file("four.h5");
  const MergeSummary s4 = merge_results(four, four_path);
  EXPECT_EQ(s4.parts, 4u);
  EXPECT_EQ(s4.rows, s1.rows);
  EXPECT_FALSE(testing::fs::exists(temporary_name(four_path)));

  const ResultsReader a(one_path), b(four_path);
  const StageRows ra = a.stage_rows(), rb = b.stage_rows();
  testing::expect_stage_rows_equal(ra, rb);
  testing::expect_rows_equal(a.queries(), b.queries(), "queries");
  testing::expect_rows_equal(a.targets(), b.targets(), "targets");
  testing::expect_rows_equal(a.skipped(), b.skipped(), "skipped");

  // And equal to the sample's rows in the documented order.
  StageRows expected = sample_.rows(0, n);
  for_each_stage_table(expected, [](StageKind, const char*, const char*, auto& v) { sort_rows(v); });
  testing::expect_stage_rows_equal(ra, expected);
  ASSERT_FALSE(ra.miranda_hits.empty());
  ASSERT_FALSE(ra.bpmax_structures.empty());
  for (std::size_t i = 1; i < ra.miranda_hits.size(); ++i) {
    const auto& p = ra.miranda_hits[i - 1];
    const auto& q = ra.miranda_hits[i];
    ASSERT_LE(std::make_tuple(p.query, p.target, p.rstart), std::make_tuple(q.query, q.target, q.rstart));
  }
  EXPECT_EQ(ra.bpmax_scores.size(), kQueries * kTargets);
  EXPECT_EQ(ra.bpmax_scores.back().query, kQueries - 1);
  EXPECT_EQ(ra.bpmax_scores.back().target, kTargets - 1);

  // Bookkeeping differs, as it should: one shard row against five, by id.
  const auto sh1 = a.shards();
  const auto sh4 = b.shards();
  ASSERT_EQ(sh1.size(), 1u);
  EXPECT_EQ(sh1[0].status, "complete");
  EXPECT_EQ(sh1[0].unit_end, n);
  EXPECT_EQ(sh1[0].part, "part-0.h5");
  ASSERT_EQ(sh4.size(), 5u);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(sh4[k].id, 10 + k);
    EXPECT_EQ(sh4[k].unit_begin, cuts[k]);
    EXPECT_EQ(sh4[k].unit_end, cuts[k + 1]);
    EXPECT_EQ(sh4[k].host, "node" + std::to_string(10 + k));
    EXPECT_EQ(sh4[k].wall_seconds, 1.5 * (11 + k));
    EXPECT_EQ(sh4[k].checksum.size(), 64u);
  }
  EXPECT_EQ(sh4[4].status, "failed");
  EXPECT_EQ(sh4[4].device, "cuda:1");
}

TEST_F(Merge, RootAttributesAndStageParameters) {
  std::mt19937_64 rng(1);
  spec_.parts = {write_shard(dir_, sample_, spec_, 0, 0, sample_.units(), rng)};
  const std::string path = dir_.file("results.h5");
  merge_results(spec_, path);
  const ResultsReader r(path);
  const ResultsInfo& info = r.info();
  EXPECT_EQ(info.schema_version, 2);
  EXPECT_EQ(info.screen_version, version_string());
  EXPECT_EQ(info.git_commit, git_commit());
  EXPECT_EQ(info.job_name, "merge-test");
  EXPECT_EQ(info.manifest, job_.manifest_text);
  EXPECT_EQ(info.manifest_sha256, job_.manifest_sha256);
  ASSERT_EQ(info.inputs.size(), 2u);
  EXPECT_EQ(info.inputs[1].side, "target");
  EXPECT_EQ(info.inputs[1].set, "utrs");
  EXPECT_EQ(info.inputs[1].path, "/data/utrs.fa.gz");
  EXPECT_EQ(info.inputs[1].sha256, sha256_hex("utrs"));
  EXPECT_EQ(info.stages, job_.stage_order);
  EXPECT_EQ(info.created, "2024-05-01T10:00:00Z");
  EXPECT_EQ(info.hosts, std::vector<std::string>{"node1"});
  EXPECT_EQ(info.devices, std::vector<std::string>{"cpu"});
  EXPECT_EQ(info.command_line, "screen run job.yaml");

  const h5::Group nus = r.stage_group(StageKind::nussinov);
  EXPECT_EQ(nus.get_int("score_scale"), 2);
  EXPECT_EQ(nus.get_double("weight_cg"), 1.5);
  EXPECT_EQ(nus.get_double("weight_gu"), 0.5);
  EXPECT_EQ(nus.get_int("min_loop"), 3);
  EXPECT_TRUE(nus.get_bool("traceback"));
  const h5::Group mir = r.stage_group(StageKind::miranda);
  EXPECT_EQ(mir.get_double("score_threshold"), 150.0);
  EXPECT_EQ(mir.get_double("gap_open"), -9.0);
  EXPECT_FALSE(mir.get_bool("strict"));
  EXPECT_TRUE(mir.get_bool("energy"));  // the default, as miRanda's
  EXPECT_EQ(mir.get_double("energy_threshold"), 1.0);
  EXPECT_EQ(mir.get_double("temperature"), 30.0);
  const h5::Group bp = r.stage_group(StageKind::bpmax);
  EXPECT_EQ(bp.get_string("traceback"), "all");
  EXPECT_EQ(bp.get_double("report_threshold"), 4.5);
  EXPECT_EQ(bp.get_double("weight_cg"), 3.0);

  // Datasets are chunked and compressed.
  const h5::Dataset d = r.file().open_group("miranda").open_group("hits").open_dataset("score");
  const hid_t dcpl = H5Dget_create_plist(d.id());
  EXPECT_EQ(H5Pget_layout(dcpl), H5D_CHUNKED);
  EXPECT_EQ(H5Pget_nfilters(dcpl), 3);
  H5Pclose(dcpl);
}

TEST_F(Merge, OnlyEnabledStagesAndEmptyTables) {
  job_.nussinov.enabled = job_.bpmax.enabled = false;
  job_.stage_order = {StageKind::miranda};
  std::mt19937_64 rng(3);
  PartInfo info;
  info.shard_id = 0;
  info.manifest_sha256 = job_.results_sha256;
  info.input_sha256 = input_shas(spec_);
  info.stages = {StageKind::miranda};
  const std::string part = dir_.file("empty-part.h5");
  PartWriter(part, info).commit();
  spec_.parts = {part};
  const std::string path = dir_.file("results.h5");
  merge_results(spec_, path);
  const ResultsReader r(path);
  EXPECT_TRUE(r.has_stage(StageKind::miranda));
  EXPECT_FALSE(r.has_stage(StageKind::bpmax));
  EXPECT_FALSE(r.file().has("bpmax"));
  EXPECT_FALSE(r.file().has("nussinov"));
  EXPECT_TRUE(r.miranda_hits().empty());
  EXPECT_TRUE(r.miranda_pairs().empty());
  EXPECT_THROW(r.bpmax_scores(), ResourceError);
  EXPECT_EQ(r.queries().size(), kQueries);
}

TEST_F(Merge, RefusesBadParts) {
  std::mt19937_64 rng(5);
  const std::size_t n = sample_.units();
  const std::string a = write_shard(dir_, sample_, spec_, 0, 0, n / 2, rng);
  const std::string b = write_shard(dir_, sample_, spec_, 1, n / 2, n, rng);
  const std::string out = dir_.file("results.h5");
  auto merge_with = [&](std::vector<std::string> parts) {
    MergeSpec s = spec_;
    s.parts = std::move(parts);
    merge_results(s, out);
  };
  auto expect_fail = [&](auto&& f, ExitCode code, const std::string& needle) {
    try {
      f();
      ADD_FAILURE() << "merged: " << needle;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
    EXPECT_FALSE(testing::fs::exists(out));  // nothing under the final name, no temporary left
    EXPECT_EQ(dir_.entries(), 2u + (testing::fs::exists(dir_.file("c.h5")) ? 1u : 0u));
  };

  // The same shard twice.
  expect_fail([&] { merge_with({a, b, a}); }, ExitCode::conflict, "shard 0 appears twice");
  // Another shard id over the same units (and so the same rows).
  {
    std::mt19937_64 r2(6);
    const std::string c = write_shard(dir_, sample_, spec_, 2, n / 2 - 1, n / 2 + 1, r2);
    testing::fs::rename(c, dir_.file("c.h5"));
    expect_fail([&] { merge_with({a, b, dir_.file("c.h5")}); }, ExitCode::conflict, "overlapping work units");
    testing::fs::remove(dir_.file("c.h5"));
  }
  // Units declared apart, rows the same (a planning bug): the duplicate rows are found.
  {
    std::mt19937_64 r2(7);
    const std::string c = write_shard(dir_, sample_, spec_, 3, n - 2, n, r2, n + 10, n + 12);
    testing::fs::rename(c, dir_.file("c.h5"));
    expect_fail([&] { merge_with({a, b, dir_.file("c.h5")}); }, ExitCode::conflict, "two parts hold rows for the same key");
    testing::fs::remove(dir_.file("c.h5"));
  }
  // A part of another manifest.
  {
    manifest::Job other = job_;
    other.manifest_text += "# changed\n";
    other.manifest_sha256 = sha256_hex(other.manifest_text);
    other.results_sha256 = sha256_hex("results of " + other.manifest_text);
    MergeSpec s = spec_;
    s.job = &other;
    s.parts = {a, b};
    expect_fail([&] { merge_results(s, out); }, ExitCode::conflict, "written for manifest");
  }
  // Other inputs.
  {
    MergeSpec s = spec_;
    s.inputs[0].sha256 = sha256_hex("other mirs");
    s.parts = {a, b};
    expect_fail([&] { merge_results(s, out); }, ExitCode::conflict, "inputs");
  }
  // An incomplete part.
  {
    h5::File f = h5::File::open(b, true);
    f.set_bool("complete", false);
  }
  expect_fail([&] { merge_with({a, b}); }, ExitCode::resource, "not marked complete");
  {
    h5::File f = h5::File::open(b, true);
    f.set_bool("complete", true);
  }
  // Rows referring to sequences outside /queries.
  {
    MergeSpec s = spec_;
    s.queries.resize(2);
    s.parts = {a, b};
    expect_fail([&] { merge_results(s, out); }, ExitCode::internal, "outside /queries");
  }
  // A missing part.
  expect_fail([&] { merge_with({a, dir_.file("nope.h5")}); }, ExitCode::resource, "nope.h5");
  // And the good pair merges.
  merge_with({b, a});
  EXPECT_TRUE(testing::fs::exists(out));
}

TEST_F(Merge, H5dumpReadsTheResults) {
  const char* h5dump = "/usr/bin/h5dump";
  if (!testing::fs::exists(h5dump)) GTEST_SKIP() << "h5dump is not installed (Debian package hdf5-tools)";
  std::mt19937_64 rng(11);
  spec_.parts = {write_shard(dir_, sample_, spec_, 0, 0, sample_.units(), rng)};
  const std::string path = dir_.file("results.h5");
  merge_results(spec_, path);
  const std::string out = dir_.file("dump.txt");
  const std::string cmd = std::string(h5dump) + " -H '" + path + "' > '" + out + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  const std::string dump = testing::slurp(out);
  ASSERT_EQ(rc, 0) << dump;
  for (const char* needle : {"ATTRIBUTE \"schema_version\"", "GROUP \"miranda\"", "GROUP \"hits\"",
                             "DATASET \"target_aln_bytes\"", "GROUP \"nussinov\"", "DATASET \"structure_end\"",
                             "GROUP \"shards\"", "ATTRIBUTE \"score_scale\""})
    EXPECT_NE(dump.find(needle), std::string::npos) << needle << "\n" << dump.substr(0, 2000);
  // The data too (not only the header): one column in full.
  const std::string cmd2 = std::string(h5dump) + " -d /bpmax/scores/score '" + path + "' > '" + out + "' 2>&1";
  ASSERT_EQ(std::system(cmd2.c_str()), 0) << testing::slurp(out);
  const std::string data = testing::slurp(out);
  EXPECT_NE(data.find("SIMPLE { ( " + std::to_string(kQueries * kTargets) + " ) / ( H5S_UNLIMITED ) }"), std::string::npos)
      << data;
}

}  // namespace
}  // namespace screen::store
