// The planner: canonical unit order, deterministic balanced shards, every unit in exactly one shard,
// a stable hash.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include <cmath>
#include <cstdlib>

#include "engine/inputs.hpp"
#include "manifest/load_manifest.hpp"
#include "plan/plan.hpp"
#include "stages/nussinov/compact.hpp"

namespace screen::plan {
namespace {

using manifest::StageKind;

manifest::Job three_stage_job(std::vector<StageKind> order) {
  manifest::Job job;
  job.name = "t";
  for (StageKind k : order) {
    if (k == StageKind::nussinov) job.nussinov.enabled = true;
    if (k == StageKind::miranda) job.miranda.enabled = true;
    if (k == StageKind::bpmax) job.bpmax.enabled = true;
  }
  job.bpmax.target_window = 32;
  job.stage_order = order;
  return job;
}

std::vector<std::size_t> random_lengths(std::mt19937_64& rng, std::size_t n, std::size_t lo, std::size_t hi) {
  std::vector<std::size_t> v(n);
  for (auto& x : v) x = lo + rng() % (hi - lo + 1);
  return v;
}

TEST(Plan, BothStrandsAddReverseUnitsPerQueryAfterTheForwardOnes) {
  const auto job = three_stage_job({StageKind::nussinov, StageKind::miranda, StageKind::bpmax});
  const std::vector<std::size_t> q{20, 22}, t{100, 50, 70};
  const std::vector<std::uint8_t> both{1, 0, 1};  // targets 0 and 2 in a `strand: both` set
  const auto units = make_units(job, q, t, both);
  ASSERT_EQ(units.size(), 5u + 2 * (2 * (3 + 2)));
  // Nussinov folds each record once, whatever its strands.
  for (std::size_t k = 0; k < 5; ++k) EXPECT_EQ(units[k].stage, StageKind::nussinov);
  // Pair stages: per query, the targets as written (side 0), then the reverse complements (side 1).
  const std::vector<std::pair<std::uint8_t, std::uint64_t>> per_query{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 2}};
  for (std::size_t s = 0; s < 2; ++s) {
    for (std::size_t k = 0; k < 10; ++k) {
      const WorkUnit& u = units[5 + 10 * s + k];
      EXPECT_EQ(u.stage, s == 0 ? StageKind::miranda : StageKind::bpmax);
      EXPECT_EQ(u.a, k / 5);
      EXPECT_EQ(u.side, per_query[k % 5].first) << k;
      EXPECT_EQ(u.b, per_query[k % 5].second) << k;
    }
  }
  // The reverse strand costs what the forward one does.
  EXPECT_EQ(units[5 + 3].cost, units[5 + 0].cost);
  // No set with both strands: the units, and the plan's hash, of a job without the key.
  const std::vector<std::uint8_t> none{0, 0, 0};
  EXPECT_EQ(make_plan(job, q, t, 2, none).hash, make_plan(job, q, t, 2).hash);
  EXPECT_NE(make_plan(job, q, t, 2, both).hash, make_plan(job, q, t, 2).hash);
}

TEST(Plan, UnitsAreInCanonicalOrder) {
  const auto job = three_stage_job({StageKind::bpmax, StageKind::nussinov, StageKind::miranda});
  const std::vector<std::size_t> q{20, 22, 25}, t{100, 50};
  const auto units = make_units(job, q, t);
  ASSERT_EQ(units.size(), 6u + 5u + 6u);
  // bpmax pairs first (manifest order), by query then target.
  for (std::size_t k = 0; k < 6; ++k) {
    EXPECT_EQ(units[k].stage, StageKind::bpmax);
    EXPECT_EQ(units[k].a, k / 2);
    EXPECT_EQ(units[k].b, k % 2);
  }
  // nussinov: queries, then targets.
  for (std::size_t k = 0; k < 5; ++k) {
    EXPECT_EQ(units[6 + k].stage, StageKind::nussinov);
    EXPECT_EQ(units[6 + k].side, k < 3 ? 0 : 1);
    EXPECT_EQ(units[6 + k].a, k < 3 ? k : k - 3);
  }
  for (std::size_t k = 0; k < 6; ++k) EXPECT_EQ(units[11 + k].stage, StageKind::miranda);
  // Costs follow the recurrences: a longer sequence folds at a higher cost; miranda is Lq * Lr.
  EXPECT_GT(units[6 + 2].ops, units[6 + 0].ops);
  EXPECT_DOUBLE_EQ(units[11].ops, 20.0 * 100.0);
  EXPECT_DOUBLE_EQ(units[6].ops, 20.0 * 20.0 * 20.0 / 6.0);
}

TEST(Plan, DeterministicBalancedAndCovering) {
  std::mt19937_64 rng(42);
  const auto job = three_stage_job({StageKind::nussinov, StageKind::miranda, StageKind::bpmax});
  for (int trial = 0; trial < 20; ++trial) {
    const auto q = random_lengths(rng, 1 + rng() % 30, 15, 30);
    const auto t = random_lengths(rng, 1 + rng() % 20, 40, 3000);
    const int k = 1 + static_cast<int>(rng() % 12);
    const Plan a = make_plan(job, q, t, k);
    const Plan b = make_plan(job, q, t, k);
    EXPECT_EQ(a.hash, b.hash);
    ASSERT_EQ(a.shards.size(), b.shards.size());
    for (std::size_t i = 0; i < a.shards.size(); ++i) {
      EXPECT_EQ(a.shards[i].unit_begin, b.shards[i].unit_begin);
      EXPECT_EQ(a.shards[i].unit_end, b.shards[i].unit_end);
    }
    // Contiguous, non-empty, ids 0..K-1, covering [0, units): every unit in exactly one shard.
    ASSERT_EQ(a.shards.size(), std::min<std::size_t>(static_cast<std::size_t>(k), a.units.size()));
    std::uint64_t next = 0, total = 0, largest = 0;
    for (std::size_t i = 0; i < a.shards.size(); ++i) {
      EXPECT_EQ(a.shards[i].id, static_cast<std::int64_t>(i));
      EXPECT_EQ(a.shards[i].unit_begin, next);
      EXPECT_GT(a.shards[i].unit_end, a.shards[i].unit_begin);
      next = a.shards[i].unit_end;
    }
    EXPECT_EQ(next, a.units.size());
    for (const auto& u : a.units) {
      total += u.cost;
      largest = std::max(largest, u.cost);
    }
    // Balance: no shard exceeds its share by more than the largest unit (when K is small enough
    // that the one-unit-per-shard rule does not force the cuts).
    if (a.units.size() >= 4 * a.shards.size()) {
      for (const auto& s : a.shards) {
        EXPECT_LE(static_cast<double>(s.cost), static_cast<double>(total) / static_cast<double>(a.shards.size()) +
                                                   static_cast<double>(largest))
            << "trial " << trial << " shard " << s.id;
      }
    }
  }
}

TEST(Plan, OneAndManyShardsCoverTheSameUnits) {
  std::mt19937_64 rng(7);
  const auto job = three_stage_job({StageKind::miranda, StageKind::bpmax});
  const auto q = random_lengths(rng, 9, 18, 25), t = random_lengths(rng, 7, 50, 500);
  const Plan one = make_plan(job, q, t, 1);
  const Plan many = make_plan(job, q, t, 5);
  ASSERT_EQ(one.units.size(), many.units.size());
  for (std::size_t i = 0; i < one.units.size(); ++i) {
    EXPECT_EQ(one.units[i].stage, many.units[i].stage);
    EXPECT_EQ(one.units[i].a, many.units[i].a);
    EXPECT_EQ(one.units[i].b, many.units[i].b);
    EXPECT_EQ(one.units[i].cost, many.units[i].cost);
  }
  ASSERT_EQ(one.shards.size(), 1u);
  EXPECT_EQ(one.shards[0].unit_end, one.units.size());
  std::vector<int> seen(many.units.size(), 0);
  for (const auto& s : many.shards)
    for (auto u = s.unit_begin; u < s.unit_end; ++u) ++seen[u];
  for (int c : seen) EXPECT_EQ(c, 1);
  EXPECT_NE(one.hash, many.hash);  // the shard ranges are part of the hash
}

TEST(Plan, HashChangesWithTheInputs) {
  const auto job = three_stage_job({StageKind::nussinov, StageKind::bpmax});
  const Plan a = make_plan(job, {20, 21}, {100, 200}, 2);
  const Plan b = make_plan(job, {20, 21}, {100, 201}, 2);
  const Plan c = make_plan(job, {20, 21}, {100, 200}, 2);
  EXPECT_NE(a.hash, b.hash);
  EXPECT_EQ(a.hash, c.hash);
  EXPECT_EQ(a.hash.size(), 64u);
}

TEST(Plan, AutoShardCountFollowsTargetMinutes) {
  auto job = three_stage_job({StageKind::bpmax});
  job.bpmax.target_window = 0;
  const std::vector<std::size_t> q(10, 25), t(10, 2000);
  const auto units = make_units(job, q, t);
  double seconds = 0;  // the cost model's seconds (WorkUnit::cost), not the seconds table's
  for (const auto& u : units) seconds += static_cast<double>(u.cost) * 1e-6;
  job.sharding.target_shard_minutes = seconds / 60.0 / 7.5;  // 7.5 shards' worth: 8 shards
  EXPECT_EQ(shard_count(job, units), 8);
  job.sharding.shards = 3;  // an explicit count wins
  EXPECT_EQ(shard_count(job, units), 3);
  EXPECT_EQ(shard_count(job, units, 5), 5);
  EXPECT_EQ(shard_count(job, units, 1000), 100);  // never more than the units
}

TEST(Plan, OversizedUnitsAreSkippedWithTheirReasonAndHashed) {
  auto job = three_stage_job({StageKind::nussinov, StageKind::miranda});
  const std::vector<std::size_t> q{20, 21}, t{100, 3000};
  const Plan all = make_plan(job, q, t, 2);
  EXPECT_TRUE(all.skipped.empty());
  job.resources.max_unit_memory = 4ull * 1000 * 1000;  // the 3,000-nt fold needs 18 MB (16-bit cells)
  const Plan p = make_plan(job, q, t, 2);
  ASSERT_EQ(p.skipped.size(), 1u);
  EXPECT_EQ(p.skipped[0].unit.stage, StageKind::nussinov);
  EXPECT_EQ(p.skipped[0].unit.side, 1);
  EXPECT_EQ(p.skipped[0].unit.a, 1u);
  EXPECT_EQ(p.skipped[0].reason,
            "the Nussinov table needs 17.2 MiB on the CPU path, more than resources.max_unit_memory (3.8 MiB)");
  EXPECT_EQ(p.units.size() + 1, all.units.size());
  EXPECT_NE(p.hash, all.hash);
  EXPECT_EQ(p.hash, make_plan(job, q, t, 2).hash);
}

TEST(Plan, NussinovMemoryFollowsTheCellWidth) {
  // Unit weights: the mirrored table of 16-bit cells up to 65,535 nt (score at most n / 2); beyond,
  // tiles of 16-bit offsets from per-tile bases, about n^2 bytes on the CPU and on the GPU.
  const auto job = three_stage_job({StageKind::nussinov});
  const auto units = make_units(job, {65535, 65536}, {205012});
  ASSERT_EQ(units.size(), 3u);
  EXPECT_EQ(units[0].memory_bytes, 2ull * 65535 * 65535);
  EXPECT_EQ(units[0].gpu_memory_bytes, 2ull * 65535 * 65535);
  EXPECT_EQ(units[1].memory_bytes, nussinov::compact_bytes(65536));
  EXPECT_LT(units[1].memory_bytes, 65536ull * 65536 + 65536ull * 65536 / 20);
  EXPECT_EQ(units[2].memory_bytes, nussinov::compact_bytes(205012));  // 42 GB: within the default 64 GiB
  EXPECT_LT(units[2].memory_bytes, 64ull << 30);
  EXPECT_GT(units[2].gpu_memory_bytes, 205012ull * 205012);
  EXPECT_LT(units[2].gpu_memory_bytes, 205012ull * 205012 + 205012ull * 205012 / 20);
  // Weights up to 3 (CG 3): the bound (n / 2) * 3 fits 16 bits only to 21,845 nt.
  auto weighted = job;
  weighted.nussinov.pairs = PairWeights{3, 2, 1, 1};
  const auto w = make_units(weighted, {21845, 21846}, {});
  EXPECT_EQ(w[0].memory_bytes, 2ull * 21845 * 21845);
  EXPECT_EQ(w[1].memory_bytes, nussinov::compact_bytes(21846));
  // Weights over 64 score units: 16-bit offsets could overflow, so 32-bit cells (4 n^2 on the CPU).
  auto heavy = job;
  heavy.nussinov.pairs = PairWeights{65, 2, 1, 1};
  const auto h = make_units(heavy, {1000, 1100}, {});
  EXPECT_EQ(h[0].memory_bytes, 2ull * 1000 * 1000);
  EXPECT_EQ(h[1].memory_bytes, 4ull * 1100 * 1100);
  EXPECT_EQ(h[1].gpu_memory_bytes, 2ull * 1100 * 1100);
}

TEST(Plan, CalibratedEstimatesAreOrdered) {
  // Large problems are faster on a GPU than on one CPU core; per-unit costs keep tiny units > 0.
  for (StageKind k : {StageKind::nussinov, StageKind::miranda, StageKind::bpmax}) {
    WorkUnit u;
    u.stage = k;
    u.ops = 1e12;
    EXPECT_LT(unit_seconds(u, DeviceKind::gpu), unit_seconds(u, DeviceKind::cpu_core)) << stage_name(k);
    EXPECT_GT(throughput(k, DeviceKind::cpu_core), 1e8) << stage_name(k);
  }
  WorkUnit tiny;
  tiny.ops = 1;
  EXPECT_GT(unit_seconds(tiny, DeviceKind::cpu_core), 1e-5);
}

// The plan is what a resumed run checks: its costs follow the frozen cost model, not the seconds
// table, so recalibrating the estimates never makes an earlier folder unresumable.
TEST(Plan, CostsFollowTheFrozenCostModelAndThePlanOfTheDemoNeverChanges) {
  auto job = three_stage_job({StageKind::nussinov, StageKind::miranda, StageKind::bpmax});
  const auto units = make_units(job, {22, 23}, {300, 2000});
  for (const auto& u : units) {
    const double us = (u.ops / cost_throughput(u.stage) + cost_per_unit(u.stage)) * 1e6;
    EXPECT_EQ(u.cost, std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(us)))) << stage_name(u.stage);
  }
  // The demo job's plan as the first builds made it (`screen plan configs/demo.yaml`).
  const char* src = std::getenv("SCREEN_SOURCE_DIR");
  const std::string dir = src ? src : ".";
  const manifest::Job demo = manifest::load_manifest(dir + "/configs/demo.yaml");
  const engine::Inputs in = engine::load_inputs(demo);
  const Plan p = make_plan(demo, in.query_lengths(), in.target_lengths());
  EXPECT_EQ(p.hash.substr(0, 16), "9436a293ed6a86ef");
  EXPECT_EQ(p.units.size(), 127u);
}

}  // namespace
}  // namespace screen::plan
