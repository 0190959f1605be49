// Part files: round trips of every row type, and verify() on damaged, incomplete and foreign parts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/sha256.hpp"
#include "store/h5.hpp"
#include "store/part_file.hpp"
#include "store_test_util.hpp"

namespace screen::store {
namespace {

using testing::TempDir;

const std::string kManifest = sha256_hex("manifest v1");
const std::vector<std::string> kInputs = {sha256_hex("queries.fa"), sha256_hex("targets.fa")};
const std::vector<StageKind> kAll = {StageKind::bpmax, StageKind::nussinov, StageKind::miranda};

PartInfo info(std::int64_t shard, std::uint64_t b, std::uint64_t e, std::vector<StageKind> stages = kAll) {
  PartInfo i;
  i.shard_id = shard;
  i.unit_begin = b;
  i.unit_end = e;
  i.manifest_sha256 = kManifest;
  i.input_sha256 = kInputs;
  i.stages = std::move(stages);
  return i;
}

// Writes rows in two batches per table; returns the checksum.
std::string write_part(const std::string& path, const PartInfo& pi, const StageRows& rows) {
  PartWriter w(path, pi);
  auto halves = [](const auto& v) {
    using V = std::decay_t<decltype(v)>;
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    return std::pair<V, V>{V(v.begin(), mid), V(mid, v.end())};
  };
  const bool nus = has_stage(pi.stages, StageKind::nussinov);
  const bool mir = has_stage(pi.stages, StageKind::miranda);
  const bool bpm = has_stage(pi.stages, StageKind::bpmax);
  for (int k = 0; k < 2; ++k) {
    auto pick = [k](const auto& p) -> const auto& { return k == 0 ? p.first : p.second; };
    if (nus) {
      w.append_nussinov(Side::query, pick(halves(rows.nussinov_queries)));
      w.append_nussinov(Side::target, pick(halves(rows.nussinov_targets)));
    }
    if (mir) {
      w.append(pick(halves(rows.miranda_hits)));
      w.append(pick(halves(rows.miranda_pairs)));
    }
    if (bpm) {
      w.append(pick(halves(rows.bpmax_scores)));
      w.append(pick(halves(rows.bpmax_structures)));
    }
  }
  w.set_timing(12.5, "cuda:0 NVIDIA H100", "node17");
  return w.commit();
}

StageRows sample_rows() {
  const auto s = testing::make_sample(4, 5, 42);
  return s.rows(0, s.units());
}

TEST(PartFile, RoundTripEveryRowType) {
  TempDir dir;
  const std::string path = dir.file("part-0003.h5");
  StageRows rows = sample_rows();
  // Long structures and alignment lines, and text HDF5 must keep byte for byte.
  rows.nussinov_targets.push_back({99, 123456789012LL, std::string(200000, '(') + std::string(200000, ')')});
  rows.bpmax_structures.push_back({7, 8, 0, -5, std::string(30000, '[') + "&" + std::string(30000, ']'), "1:2"});
  rows.miranda_hits.push_back({1, 1, 0, 9, -3, 1, 2, 3, 4, 5, 100.0, 0.0, "\xc3\xa9", "", "x\ty"});
  // Rows of a reverse-strand scan (targets[].strand: both) keep their strand.
  rows.miranda_hits.push_back({1, 1, 1, 0, 150, 1, 20, 30, 50, 21, 90.0, 95.0, "a", "|", "u"});
  rows.miranda_pairs.push_back({1, 1, 1, 150, 150, 1, 0});
  rows.bpmax_scores.push_back({7, 8, 1, 12, 1, 5, 40, 60});
  rows.bpmax_structures.push_back({7, 8, 1, 12, "((..))&.", "1:60"});
  ASSERT_FALSE(rows.miranda_hits.empty());
  ASSERT_FALSE(rows.bpmax_structures.empty());
  const std::string checksum = write_part(path, info(3, 10, 20), rows);
  EXPECT_EQ(checksum.size(), 64u);
  EXPECT_EQ(dir.entries(), 1u);  // no temporary left behind

  const Part p = PartReader::read(path);
  EXPECT_TRUE(p.complete);
  EXPECT_EQ(p.checksum, checksum);
  EXPECT_EQ(p.info.shard_id, 3);
  EXPECT_EQ(p.info.unit_begin, 10u);
  EXPECT_EQ(p.info.unit_end, 20u);
  EXPECT_EQ(p.info.manifest_sha256, kManifest);
  EXPECT_EQ(p.info.input_sha256, kInputs);
  EXPECT_EQ(p.info.stages, (std::vector<StageKind>{StageKind::nussinov, StageKind::miranda, StageKind::bpmax}));
  EXPECT_EQ(p.info.wall_seconds, 12.5);
  EXPECT_EQ(p.info.device, "cuda:0 NVIDIA H100");
  EXPECT_EQ(p.info.host, "node17");
  testing::expect_stage_rows_equal(p.rows, rows);  // in the order appended

  const PartCheck c = PartReader::verify(path, kManifest, kInputs);
  EXPECT_TRUE(c.ok()) << c.reason;
  EXPECT_EQ(c.checksum, checksum);
}

TEST(PartFile, EmptyTablesAndStageSubsets) {
  TempDir dir;
  const std::string empty = dir.file("empty.h5");
  write_part(empty, info(0, 0, 0), StageRows{});
  const Part p = PartReader::read(empty);
  testing::expect_stage_rows_equal(p.rows, StageRows{});
  EXPECT_TRUE(PartReader::verify(empty, kManifest, kInputs).ok());
  {
    const h5::File f = h5::File::open(empty);
    EXPECT_EQ(f.open_group("miranda").open_group("hits").open_dataset("query_aln_bytes").rows(), 0u);
  }

  // Only miRanda: no other stage's tables, and rows for them are refused.
  const std::string mir = dir.file("mir.h5");
  StageRows rows = sample_rows();
  write_part(mir, info(1, 0, 5, {StageKind::miranda}), rows);
  const Part m = PartReader::read(mir);
  EXPECT_EQ(m.info.stages, std::vector<StageKind>{StageKind::miranda});
  testing::expect_rows_equal(m.rows.miranda_hits, rows.miranda_hits, "hits");
  EXPECT_TRUE(m.rows.bpmax_scores.empty());
  EXPECT_TRUE(m.rows.nussinov_queries.empty());
  {
    const h5::File f = h5::File::open(mir);
    EXPECT_EQ(f.children(), std::vector<std::string>{"miranda"});
  }
  PartWriter w(dir.file("refuse.h5"), info(2, 0, 1, {StageKind::miranda}));
  try {
    w.append(rows.bpmax_scores);
    ADD_FAILURE() << "rows of an absent stage accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::internal);
    EXPECT_NE(std::string(e.what()).find("bpmax/scores"), std::string::npos) << e.what();
  }
}

TEST(PartFile, NothingUnderTheFinalNameWithoutCommit) {
  TempDir dir;
  const std::string path = dir.file("part.h5");
  {
    PartWriter w(path, info(0, 0, 1));
    w.append(sample_rows().bpmax_scores);
    EXPECT_TRUE(testing::fs::exists(w.temporary_path()));
    EXPECT_FALSE(testing::fs::exists(path));
  }
  EXPECT_EQ(dir.entries(), 0u);
  const PartCheck c = PartReader::verify(path, kManifest, kInputs);
  EXPECT_EQ(c.status, PartStatus::missing);
  EXPECT_NE(c.reason.find(path), std::string::npos);
}

class PartVerify : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.file("part.h5");
    rows_ = sample_rows();
    checksum_ = write_part(path_, info(5, 100, 200), rows_);
    bytes_ = testing::slurp(path_);
  }
  PartCheck verify_bytes(const std::string& bytes) {
    const std::string p = dir_.file("damaged.h5");
    testing::spit(p, bytes);
    return PartReader::verify(p, kManifest, kInputs);
  }
  TempDir dir_;
  std::string path_;
  StageRows rows_;
  std::string checksum_;
  std::string bytes_;
};

TEST_F(PartVerify, TruncatedFiles) {
  for (std::size_t cut : {std::size_t{1}, std::size_t{100}, bytes_.size() / 2, bytes_.size() - 10, bytes_.size()}) {
    const PartCheck c = verify_bytes(bytes_.substr(0, bytes_.size() - cut));
    EXPECT_EQ(c.status, PartStatus::unreadable) << "cut " << cut << ": " << c.reason;
    EXPECT_NE(c.reason.find("damaged.h5"), std::string::npos) << c.reason;
  }
}

TEST_F(PartVerify, FlippedBytes) {
  // A flipped byte in a chunk of stored text: HDF5's per-chunk Fletcher-32 reports it.
  {
    const h5::File f = h5::File::open(path_);
    const h5::Dataset d = f.open_group("miranda").open_group("hits").open_dataset("target_aln_bytes");
    const h5::Dataspace space = d.space();
    hsize_t nchunks = 0;
    ASSERT_GE(H5Dget_num_chunks(d.id(), space.id(), &nchunks), 0);
    ASSERT_GE(nchunks, 1u);
    hsize_t offset[1] = {0};
    unsigned mask = 0;
    haddr_t addr = 0;
    hsize_t size = 0;
    ASSERT_GE(H5Dget_chunk_info(d.id(), space.id(), 0, offset, &mask, &addr, &size), 0);
    ASSERT_LT(addr + size, bytes_.size());
    std::string b = bytes_;
    b[addr + size / 2] = static_cast<char>(b[addr + size / 2] ^ 0x01);
    const PartCheck c = verify_bytes(b);
    EXPECT_EQ(c.status, PartStatus::unreadable) << c.reason;
    EXPECT_NE(c.reason.find("/miranda/hits/target_aln_bytes"), std::string::npos) << c.reason;
    EXPECT_NE(c.reason.find("Fletcher32"), std::string::npos) << c.reason;
  }

  // Anywhere in the file: verify never throws, and whenever it says ok the rows read are the rows written.
  // SCREEN_STORE_FLIP_STEP=N tries every N-th byte (1: all, slow); by default about 150 spread over the file.
  const char* step_env = std::getenv("SCREEN_STORE_FLIP_STEP");
  const std::size_t step = step_env ? std::max(1ul, std::strtoul(step_env, nullptr, 10))
                                    : std::max<std::size_t>(1, bytes_.size() / 150);
  int detected = 0, harmless = 0;
  for (std::size_t pos = 0; pos < bytes_.size(); pos += step) {
    std::string b = bytes_;
    b[pos] = static_cast<char>(b[pos] ^ 0x5a);
    PartCheck v;
    ASSERT_NO_THROW(v = verify_bytes(b)) << "byte " << pos;
    if (v.ok()) {
      ++harmless;
      const Part p = PartReader::read(dir_.file("damaged.h5"));
      testing::expect_stage_rows_equal(p.rows, rows_);
      EXPECT_EQ(p.checksum, checksum_);
    } else {
      ++detected;
      EXPECT_NE(v.status, PartStatus::missing);
    }
  }
  EXPECT_GT(detected, 0);
  std::printf("flipped bytes in a %zu-byte part: %d detected, %d in unused or unread space\n", bytes_.size(), detected,
              harmless);
}

TEST_F(PartVerify, IncompleteParts) {
  {
    h5::File f = h5::File::open(path_, true);
    f.set_bool("complete", false);
  }
  PartCheck c = PartReader::verify(path_, kManifest, kInputs);
  EXPECT_EQ(c.status, PartStatus::incomplete) << c.reason;
  {
    h5::File f = h5::File::open(path_, true);
    f.remove_attribute("complete");
  }
  c = PartReader::verify(path_, kManifest, kInputs);
  EXPECT_EQ(c.status, PartStatus::incomplete) << c.reason;
  EXPECT_NE(c.reason.find("not marked complete"), std::string::npos) << c.reason;
}

TEST_F(PartVerify, ChangedRowsAndAttributes) {
  // A score rewritten in place through HDF5 (a well-formed file with other content).
  {
    h5::File f = h5::File::open(path_, true);
    h5::Dataset d = f.open_group("bpmax").open_group("scores").open_dataset("score");
    h5::Dataspace s = d.space();
    s.select(0, 1);
    const std::int64_t v = rows_.bpmax_scores[0].score + 1;
    const h5::Dataspace m = h5::Dataspace::simple(1, 1, d.where());
    ASSERT_GE(H5Dwrite(d.id(), H5T_NATIVE_INT64, m.id(), s.id(), H5P_DEFAULT, &v), 0);
  }
  EXPECT_EQ(PartReader::verify(path_, kManifest, kInputs).status, PartStatus::checksum_mismatch);
  // A unit range rewritten: covered by the checksum as well.
  testing::spit(path_, bytes_);
  ASSERT_TRUE(PartReader::verify(path_, kManifest, kInputs).ok());
  {
    h5::File f = h5::File::open(path_, true);
    f.set_uint("unit_end", 201);
  }
  EXPECT_EQ(PartReader::verify(path_, kManifest, kInputs).status, PartStatus::checksum_mismatch);
}

TEST_F(PartVerify, OtherManifestOrInputs) {
  PartCheck c = PartReader::verify(path_, sha256_hex("manifest v2"), kInputs);
  EXPECT_EQ(c.status, PartStatus::different_manifest);
  EXPECT_NE(c.reason.find(kManifest), std::string::npos) << c.reason;
  c = PartReader::verify(path_, kManifest, {kInputs[0], sha256_hex("other targets")});
  EXPECT_EQ(c.status, PartStatus::different_inputs) << c.reason;
  c = PartReader::verify(path_, kManifest, {kInputs[0]});
  EXPECT_EQ(c.status, PartStatus::different_inputs) << c.reason;
}

TEST_F(PartVerify, NotAPartFile) {
  EXPECT_EQ(verify_bytes("").status, PartStatus::unreadable);
  EXPECT_EQ(verify_bytes("hello\n").status, PartStatus::unreadable);
  const std::string other = dir_.file("other.h5");
  {
    h5::File f = h5::File::create(other);
    f.set_string("format", "something else");
  }
  const PartCheck c = PartReader::verify(other, kManifest, kInputs);
  EXPECT_EQ(c.status, PartStatus::unreadable);
  EXPECT_NE(c.reason.find("not a screen part file"), std::string::npos) << c.reason;
  EXPECT_THROW(PartReader::read(other), ResourceError);
}

}  // namespace
}  // namespace screen::store
