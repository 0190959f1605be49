#pragma once
// The work units of a run's pending shards, handed out to the workers in batches: ranges of
// consecutive units of one shard, one stage and (Nussinov) one side. Every unit is handed out at
// most once; a stop or an error closes the queue.
//
// - Front takers (the GPU workers, or the CPU worker when there is no GPU worker) take the first
//   units not yet handed out, in plan order, cut by batch_end (batching.hpp) with their limits;
//   GPU batches shrink near the end of the run, so that the last batch's host work is short.
// - The helper (the CPU worker beside GPU workers) takes the units where a CPU core does best
//   against a GPU (lowest ratio of the estimated seconds on one core to those on one GPU,
//   plan::unit_seconds, and only up to a ratio where a core still does a useful share of a GPU's
//   work: unit_queue.cpp), among the shards already opened and the next one; each batch short, and
//   only while its estimated wall time on the helper's threads (pessimistic: they run at the lowest
//   priority) is at most half the GPU workers' estimated time for every unit not yet handed out, so
//   that it never holds up the end of the run. A helper that finds nothing now may find something
//   once the front opens the next shard (more_later).
// - A helper batch blocks its shard's rows in order (and so its checkpoints) until it is delivered,
//   and the helper's threads, at the lowest priority, can starve while the GPU workers' host work
//   takes every core. So a front taker takes a helper batch again, whole, when the helper has held
//   it longer than the grace period, or when there is nothing else left to take: the first delivery
//   counts, the second is dropped (both are the same rows). delivered() ends a helper batch's hold.
// - A shard is opened (the OpenShard callback: its part started, its checkpoints read) before any of
//   its units is handed out; the units its checkpoints cover are never handed out.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "engine/device.hpp"
#include "plan/plan.hpp"

namespace screen::engine {

struct UnitClaim {
  std::size_t shard = 0;  // index into the queue's shards
  std::uint64_t begin = 0, end = 0;
};

class UnitQueue {
 public:
  // open(k) opens shards[k] and returns the first unit its checkpoints do not cover.
  using OpenShard = std::function<std::uint64_t(std::size_t k)>;
  // The taker's batch limits for a stage (Device::batch_limits).
  using LimitsFor = std::function<BatchLimits(plan::StageKind)>;
  UnitQueue(const plan::Plan& p, std::vector<const plan::Shard*> shards, int gpu_workers, OpenShard open,
            double helper_grace_seconds = 10.0);

  // The next batch for a front taker; nullopt when every unit is handed out or the queue is closed.
  std::optional<UnitClaim> take_front(const LimitsFor& limits, double max_wall_seconds);

  // The next batch for the helper; nullopt with more_later true when there is none for it now but
  // there may be later, false when there never will be.
  std::optional<UnitClaim> take_helper(const LimitsFor& limits, double max_wall_seconds, bool& more_later);

  // The batch's rows are in its shard's part (ends a helper batch's hold).
  void delivered(const UnitClaim& c);

  void close();  // no more batches (a stop request or an error)
  bool closed() const;
  // Seconds every unit not handed out needs on one GPU (estimates).
  double gpu_seconds_left() const;

 private:
  struct ShardState {
    bool opened = false;
    std::uint64_t front = 0;             // no unit before it is free
    std::vector<std::uint64_t> order;    // the helper's order (units by ratio), filled when opened
    std::size_t order_next = 0;          // no unit before it in `order` is free
  };
  void open(std::size_t k);                               // mutex_ held
  void take(std::uint64_t begin, std::uint64_t end);      // mutex_ held
  std::uint64_t first_free(std::size_t k);                // mutex_ held
  double ratio(std::uint64_t u) const;

  const plan::Plan& plan_;
  std::vector<const plan::Shard*> shards_;
  int gpu_workers_;
  OpenShard open_;
  mutable std::mutex mutex_;
  std::vector<ShardState> state_;
  std::vector<std::uint8_t> taken_;  // by plan unit index
  std::size_t front_shard_ = 0;      // no shard before it has a free unit
  double gpu_left_ = 0;
  bool closed_ = false;
  struct HelperHold {
    std::size_t shard = 0;
    std::uint64_t end = 0;
    double since = 0;  // steady clock, seconds
    bool retaken = false;
  };
  std::map<std::uint64_t, HelperHold> helper_holds_;  // helper batches not delivered, by first unit
  double grace_;
};

}  // namespace screen::engine
