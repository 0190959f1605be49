// The unit queue (engine/unit_queue.hpp) on hand-made plans: front takers get every unit once, in
// plan order, in batches that keep to one shard, stage and side; units covered by checkpoints are
// never handed out; many threads at once take each unit once, but for helper batches taken again
// whole (past the grace, or at the end); the helper takes the units where a CPU core does best
// against a GPU and never a batch it would finish after the GPUs.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "engine/unit_queue.hpp"

namespace screen::engine::testing {
namespace {

plan::WorkUnit unit(plan::StageKind stage, std::uint8_t side, double ops) {
  plan::WorkUnit u;
  u.stage = stage;
  u.side = side;
  u.ops = ops;
  u.cost = 1;
  return u;
}

// Nussinov queries and targets, then miRanda pairs, then BPMax pairs (the canonical order's shape).
plan::Plan mixed_plan(int shards, std::size_t pairs, double bpmax_ops = 1e10) {
  plan::Plan p;
  for (int k = 0; k < 5; ++k) p.units.push_back(unit(plan::StageKind::nussinov, 0, 2e3));
  for (int k = 0; k < 40; ++k) p.units.push_back(unit(plan::StageKind::nussinov, 1, 1e6 * (1 + k % 7)));
  for (std::size_t k = 0; k < pairs; ++k) p.units.push_back(unit(plan::StageKind::miranda, 0, 5e4));
  for (std::size_t k = 0; k < pairs; ++k) p.units.push_back(unit(plan::StageKind::bpmax, 0, bpmax_ops));
  p.shards = plan::make_shards(p.units, shards);
  return p;
}

std::vector<const plan::Shard*> all_shards(const plan::Plan& p) {
  std::vector<const plan::Shard*> v;
  for (const auto& s : p.shards) v.push_back(&s);
  return v;
}

UnitQueue::LimitsFor gpu_limits(std::size_t max_units = 16) {
  return [max_units](plan::StageKind) {
    BatchLimits l;
    l.kind = plan::DeviceKind::gpu;
    l.seconds = 1e9;
    l.max_units = max_units;
    return l;
  };
}

UnitQueue::LimitsFor cpu_limits(int threads, std::size_t max_units = 16) {
  return [threads, max_units](plan::StageKind) {
    BatchLimits l;
    l.kind = plan::DeviceKind::cpu_core;
    l.seconds = 1e9;
    l.parallel = threads;
    l.max_units = max_units;
    return l;
  };
}

void expect_one_batch_shape(const plan::Plan& p, const std::vector<const plan::Shard*>& shards, const UnitClaim& c) {
  ASSERT_LT(c.begin, c.end);
  EXPECT_GE(c.begin, shards[c.shard]->unit_begin);
  EXPECT_LE(c.end, shards[c.shard]->unit_end);
  for (std::uint64_t u = c.begin; u < c.end; ++u) {
    EXPECT_EQ(p.units[u].stage, p.units[c.begin].stage) << u;
    EXPECT_EQ(p.units[u].side, p.units[c.begin].side) << u;
  }
}

TEST(UnitQueue, AFrontTakerGetsEveryUnitOnceInPlanOrder) {
  const plan::Plan p = mixed_plan(3, 30);
  const auto shards = all_shards(p);
  std::vector<std::size_t> opened;
  UnitQueue q(p, shards, 1, [&](std::size_t k) {
    opened.push_back(k);
    return shards[k]->unit_begin;
  });
  std::uint64_t next = 0;
  while (auto c = q.take_front(gpu_limits(), 1e9)) {
    expect_one_batch_shape(p, shards, *c);
    EXPECT_EQ(c->begin, next);
    EXPECT_LE(c->end - c->begin, 16u);
    next = c->end;
  }
  EXPECT_EQ(next, p.units.size());
  EXPECT_EQ(opened, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_NEAR(q.gpu_seconds_left(), 0.0, 1e-9);
  EXPECT_FALSE(q.take_front(gpu_limits(), 1e9));
}

TEST(UnitQueue, UnitsCoveredByCheckpointsAreNeverHandedOut) {
  const plan::Plan p = mixed_plan(3, 30);
  const auto shards = all_shards(p);
  const std::uint64_t resumed = shards[1]->unit_begin + 7;
  UnitQueue q(p, shards, 1, [&](std::size_t k) { return k == 1 ? resumed : shards[k]->unit_begin; });
  std::vector<int> count(p.units.size(), 0);
  bool later = false;
  while (true) {
    auto c = q.take_helper(cpu_limits(64), 1e9, later);  // the helper, too, never gets them
    if (!c) c = q.take_front(gpu_limits(), 1e9);
    if (!c) break;
    for (std::uint64_t u = c->begin; u < c->end; ++u) ++count[u];
    q.delivered(*c);
  }
  for (std::uint64_t u = 0; u < p.units.size(); ++u)
    EXPECT_EQ(count[u], u >= shards[1]->unit_begin && u < resumed ? 0 : 1) << u;
}

TEST(UnitQueue, ManyThreadsTakeEachUnitOnceButForHelperBatchesTakenAgain) {
  for (int round = 0; round < 5; ++round) {
    const plan::Plan p = mixed_plan(4, 200, 1e8);
    const auto shards = all_shards(p);
    std::atomic<int> opens{0};
    UnitQueue q(p, shards, 3, [&](std::size_t k) {
      ++opens;
      return shards[k]->unit_begin;
    });
    std::mutex m;
    std::vector<int> count(p.units.size(), 0);
    std::map<std::uint64_t, std::uint64_t> helper_batches;  // begin -> end
    std::vector<UnitClaim> front_claims;
    // The front takers start once a helper has its first batch (or after 2 s), so that on a busy
    // machine the helpers are not left with nothing.
    std::atomic<bool> helper_started{false};
    auto worker = [&](int id, bool helper) {
      std::mt19937 rng(static_cast<unsigned>(round * 100 + id));
      bool later = true;
      const auto t0 = std::chrono::steady_clock::now();
      while (!helper && !helper_started.load() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2))
        std::this_thread::yield();
      for (;;) {
        std::optional<UnitClaim> c = helper ? q.take_helper(cpu_limits(16, 1 + rng() % 8), 1e9, later)
                                            : q.take_front(gpu_limits(1 + rng() % 8), 1e9);
        if (!c) {
          if (!helper || !later) return;
          std::this_thread::yield();
          continue;
        }
        expect_one_batch_shape(p, shards, *c);
        {
          std::lock_guard<std::mutex> hold(m);
          for (std::uint64_t u = c->begin; u < c->end; ++u) ++count[u];
          if (helper) {
            helper_batches[c->begin] = c->end;
            helper_started = true;
          } else {
            front_claims.push_back(*c);
          }
        }
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % 200));
        q.delivered(*c);
      }
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < 6; ++t) threads.emplace_back(worker, t, t >= 4);
    for (auto& t : threads) t.join();
    EXPECT_FALSE(helper_batches.empty());
    // A unit handed out twice is in a helper batch that a front taker took again, whole.
    std::vector<int> retaken(p.units.size(), 0);
    for (const auto& c : front_claims) {
      const auto it = helper_batches.find(c.begin);
      if (it != helper_batches.end() && it->second == c.end)
        for (std::uint64_t u = c.begin; u < c.end; ++u) retaken[u] = 1;
    }
    for (std::uint64_t u = 0; u < p.units.size(); ++u)
      ASSERT_EQ(count[u], 1 + retaken[u]) << "unit " << u << ", round " << round;
    EXPECT_EQ(opens.load(), 4);
  }
}

TEST(UnitQueue, AHelperBatchHeldPastTheGraceIsTakenAgainUntilDelivered) {
  const plan::Plan p = mixed_plan(1, 50, 1e9);
  const auto shards = all_shards(p);
  UnitQueue q(p, shards, 1, [&](std::size_t k) { return shards[k]->unit_begin; }, 0.0);  // no grace
  bool more = false;
  const auto h = q.take_helper(cpu_limits(4, 8), 1e9, more);
  ASSERT_TRUE(h);
  const auto again = q.take_front(gpu_limits(), 1e9);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->begin, h->begin);  // the same batch, whole
  EXPECT_EQ(again->end, h->end);
  const auto next = q.take_front(gpu_limits(), 1e9);  // taken again once only
  ASSERT_TRUE(next);
  EXPECT_NE(next->begin, h->begin);
  // A delivered helper batch is not taken again, not even at the end.
  const auto h2 = q.take_helper(cpu_limits(4, 8), 1e9, more);
  ASSERT_TRUE(h2);
  q.delivered(*h2);
  while (auto f = q.take_front(gpu_limits(1000), 1e9)) EXPECT_NE(f->begin, h2->begin);
}

TEST(UnitQueue, WithNothingElseLeftTheFrontTakesTheHelpersBatchesAgain) {
  const plan::Plan p = mixed_plan(1, 10, 1e9);
  const auto shards = all_shards(p);
  UnitQueue q(p, shards, 1, [&](std::size_t k) { return shards[k]->unit_begin; });  // 10 s of grace
  bool more = false;
  const auto h = q.take_helper(cpu_limits(4, 8), 1e9, more);
  ASSERT_TRUE(h);
  std::optional<UnitClaim> last;
  while (auto f = q.take_front(gpu_limits(1000), 1e9)) last = f;
  ASSERT_TRUE(last);
  EXPECT_EQ(last->begin, h->begin);
  EXPECT_EQ(last->end, h->end);
}

TEST(UnitQueue, TheHelperTakesWhereACoreDoesBestAndNeverHoldsUpTheEnd) {
  // miRanda units cost a core a few times a GPU's time, BPMax units about a thousand times.
  const plan::Plan p = mixed_plan(1, 50, 1e9);
  const auto shards = all_shards(p);
  UnitQueue q(p, shards, 1, [&](std::size_t k) { return shards[k]->unit_begin; });
  bool later = false;
  auto c = q.take_helper(cpu_limits(4, 1000), 1e9, later);
  ASSERT_TRUE(c);
  EXPECT_EQ(p.units[c->begin].stage, plan::StageKind::miranda);
  // Its estimated wall time is at most half the GPU's for what is left.
  double cpu = 0;
  for (std::uint64_t u = c->begin; u < c->end; ++u) cpu += plan::unit_seconds(p.units[u], plan::DeviceKind::cpu_core);
  EXPECT_LE(cpu / 4, 0.5 * q.gpu_seconds_left() + 1e-12);

  // Then the rest of the miRanda units, never a BPMax pair (a core does a thousandth of a GPU's
  // work there); with one shard there is nothing for it later either.
  bool more = true;
  while (auto h = q.take_helper(cpu_limits(4, 1000), 1e9, more))
    for (std::uint64_t u = h->begin; u < h->end; ++u) EXPECT_NE(p.units[u].stage, plan::StageKind::bpmax) << u;
  EXPECT_FALSE(more);
  std::uint64_t front_units = 0;
  while (auto f = q.take_front(gpu_limits(), 1e9)) front_units += f->end - f->begin;
  EXPECT_GE(front_units, 50u);  // every BPMax pair went to the GPU
}

TEST(UnitQueue, TheHelperWaitsForShardsBeyondItsWindow) {
  // Four shards of BPMax pairs, each led by miRanda pairs: the helper takes from the front's shard
  // and the next only, and says there may be more later until the front reaches the last two.
  plan::Plan p;
  for (int s = 0; s < 4; ++s) {
    plan::Shard sh;
    sh.id = s;
    sh.unit_begin = p.units.size();
    for (int k = 0; k < 5; ++k) p.units.push_back(unit(plan::StageKind::miranda, 0, 5e4));
    for (int k = 0; k < 10; ++k) p.units.push_back(unit(plan::StageKind::bpmax, 0, 1e9));
    sh.unit_end = p.units.size();
    p.shards.push_back(sh);
  }
  const auto shards = all_shards(p);
  std::vector<std::size_t> opened;
  UnitQueue q(p, shards, 1, [&](std::size_t k) {
    opened.push_back(k);
    return shards[k]->unit_begin;
  });
  bool more = false;
  std::uint64_t helped = 0;
  while (auto h = q.take_helper(cpu_limits(4), 1e9, more)) helped += h->end - h->begin;
  EXPECT_EQ(helped, 10u);  // the miRanda pairs of shards 0 and 1
  EXPECT_TRUE(more);
  EXPECT_EQ(opened, (std::vector<std::size_t>{0, 1}));
  // The front finishes shard 0: the window moves on to shards 1 and 2.
  while (true) {
    auto f = q.take_front(gpu_limits(1), 1e9);
    ASSERT_TRUE(f);
    if (f->end == shards[0]->unit_end) break;
  }
  while (auto h = q.take_helper(cpu_limits(4), 1e9, more)) helped += h->end - h->begin;
  EXPECT_EQ(helped, 15u);
  EXPECT_TRUE(more);  // shard 3 is beyond the window
  while (q.take_front(gpu_limits(1000), 1e9)) {
  }
  EXPECT_FALSE(q.take_helper(cpu_limits(4), 1e9, more));
  EXPECT_FALSE(more);
}

TEST(UnitQueue, ACloseStopsEveryTaker) {
  const plan::Plan p = mixed_plan(2, 10);
  const auto shards = all_shards(p);
  UnitQueue q(p, shards, 1, [&](std::size_t k) { return shards[k]->unit_begin; });
  ASSERT_TRUE(q.take_front(gpu_limits(), 1e9));
  q.close();
  EXPECT_TRUE(q.closed());
  bool more = true;
  EXPECT_FALSE(q.take_front(gpu_limits(), 1e9));
  EXPECT_FALSE(q.take_helper(cpu_limits(4), 1e9, more));
  EXPECT_FALSE(more);
}

}  // namespace
}  // namespace screen::engine::testing
