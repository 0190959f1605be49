#include "engine/unit_queue.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

#include "engine/batching.hpp"

namespace screen::engine {

namespace {

// The helper takes only units where one core does at least 1/kHelperMaxRatio of a GPU's work
// (short folds, miRanda pairs: a GPU's fixed cost per unit dominates there). On the others a core
// buys too little GPU time to pay for what it takes from the GPU workers' host work (a BPMax pair
// on the CPU took 28 s of the H100 slice's 31 s beside a GPU that needed 0.02 s for it).
constexpr double kHelperMaxRatio = 64;
// Its threads run at the lowest priority beside the GPU workers' host work: its wall time is
// estimated this many times the estimate on free cores.
constexpr double kHelperSlowdown = 4;
// A helper batch only while that wall time is at most this share of the GPU workers' estimated
// time for the units not handed out (the end of the run must not wait for the helper), and at most
// kHelperBatchSeconds.
constexpr double kHelperShareOfGpuTime = 0.5;
constexpr double kHelperBatchSeconds = 2.0;
// Near the end of the run a GPU batch holds at most 1/kTailBatches of the GPU workers' estimated
// time left (not less than kTailBatchSeconds), so that the last batch's host task, which nothing
// overlaps, is short.
constexpr double kTailBatches = 8;
constexpr double kTailBatchSeconds = 0.25;
// The shards the helper takes from: the front's and the next.
constexpr std::size_t kHelperWindowShards = 2;
// A helper batch keeps to units whose ratio is at most this multiple of its first unit's.
constexpr double kHelperRatioSpread = 2.0;
// Free units of the helper's order looked at per shard for one batch.
constexpr std::size_t kHelperCandidates = 256;

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

UnitQueue::UnitQueue(const plan::Plan& p, std::vector<const plan::Shard*> shards, int gpu_workers, OpenShard open,
                     double helper_grace_seconds)
    : plan_(p), shards_(std::move(shards)), gpu_workers_(std::max(gpu_workers, 1)), open_(std::move(open)),
      grace_(helper_grace_seconds) {
  state_.resize(shards_.size());
  taken_.assign(plan_.units.size(), 0);
  for (std::size_t k = 0; k < shards_.size(); ++k) {
    state_[k].front = shards_[k]->unit_begin;
    for (std::uint64_t u = shards_[k]->unit_begin; u < shards_[k]->unit_end; ++u)
      gpu_left_ += plan::unit_seconds(plan_.units[u], plan::DeviceKind::gpu);
  }
}

double UnitQueue::ratio(std::uint64_t u) const {
  const plan::WorkUnit& w = plan_.units[u];
  return plan::unit_seconds(w, plan::DeviceKind::cpu_core) /
         std::max(plan::unit_seconds(w, plan::DeviceKind::gpu), 1e-12);
}

void UnitQueue::take(std::uint64_t begin, std::uint64_t end) {
  for (std::uint64_t u = begin; u < end; ++u) {
    taken_[u] = 1;
    gpu_left_ -= plan::unit_seconds(plan_.units[u], plan::DeviceKind::gpu);
  }
  if (gpu_left_ < 0) gpu_left_ = 0;
}

void UnitQueue::open(std::size_t k) {
  ShardState& st = state_[k];
  if (st.opened) return;
  st.opened = true;
  const plan::Shard& s = *shards_[k];
  const std::uint64_t from = std::clamp(open_(k), s.unit_begin, s.unit_end);
  take(s.unit_begin, from);  // covered by checkpoints
  st.order.reserve(s.unit_end - from);
  for (std::uint64_t u = from; u < s.unit_end; ++u) st.order.push_back(u);
  std::vector<double> r(st.order.size());
  for (std::size_t i = 0; i < r.size(); ++i) r[i] = ratio(st.order[i]);
  std::vector<std::size_t> idx(r.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return r[a] < r[b]; });
  std::vector<std::uint64_t> sorted(idx.size());
  for (std::size_t i = 0; i < idx.size(); ++i) sorted[i] = st.order[idx[i]];
  st.order = std::move(sorted);
}

std::uint64_t UnitQueue::first_free(std::size_t k) {
  ShardState& st = state_[k];
  while (st.front < shards_[k]->unit_end && taken_[st.front]) ++st.front;
  return st.front;
}

std::optional<UnitClaim> UnitQueue::take_front(const LimitsFor& limits, double max_wall_seconds) {
  std::lock_guard<std::mutex> hold(mutex_);
  if (closed_) return std::nullopt;
  // A helper batch held past the grace period is taken again (the oldest first).
  auto retake = [&](bool any) -> std::optional<UnitClaim> {
    auto oldest = helper_holds_.end();
    for (auto it = helper_holds_.begin(); it != helper_holds_.end(); ++it)
      if (!it->second.retaken && (oldest == helper_holds_.end() || it->second.since < oldest->second.since))
        oldest = it;
    if (oldest == helper_holds_.end() || (!any && now_seconds() - oldest->second.since < grace_)) return std::nullopt;
    oldest->second.retaken = true;
    return UnitClaim{oldest->second.shard, oldest->first, oldest->second.end};
  };
  if (auto r = retake(false)) return r;
  while (front_shard_ < shards_.size()) {
    const std::size_t k = front_shard_;
    open(k);
    const std::uint64_t u = first_free(k), end = shards_[k]->unit_end;
    if (u == end) {
      ++front_shard_;
      continue;
    }
    const BatchLimits l = limits(plan_.units[u].stage);
    double cap = max_wall_seconds;
    if (l.kind == plan::DeviceKind::gpu && cap > 0)
      cap = std::min(cap, std::max(kTailBatchSeconds, gpu_left_ / (kTailBatches * gpu_workers_)));
    std::uint64_t e = batch_end(plan_.units, u, end, l, cap);
    for (std::uint64_t x = u + 1; x < e; ++x)
      if (taken_[x]) {
        e = x;  // the helper has the units from here
        break;
      }
    take(u, e);
    return UnitClaim{k, u, e};
  }
  return retake(true);  // nothing else left: the helper's batches, whatever their age
}

std::optional<UnitClaim> UnitQueue::take_helper(const LimitsFor& limits_for, double max_wall_seconds,
                                                bool& more_later) {
  std::lock_guard<std::mutex> hold(mutex_);
  more_later = false;
  if (closed_) return std::nullopt;
  while (front_shard_ < shards_.size() && state_[front_shard_].opened &&
         first_free(front_shard_) == shards_[front_shard_]->unit_end)
    ++front_shard_;
  if (front_shard_ == shards_.size()) return std::nullopt;
  // The window: the front shard and the next one (so that the helper keeps few parts open).
  const std::size_t window_end = std::min(shards_.size(), front_shard_ + kHelperWindowShards);
  for (std::size_t k = front_shard_; k < window_end; ++k) open(k);
  // The helper's threads (a CPU device's limits are the same for every stage).
  const double threads = std::max(limits_for(plan::StageKind::nussinov).parallel, 1);
  auto fits = [&](double cpu_core_seconds, double gpu_seconds_taken) {
    const double wall = kHelperSlowdown * cpu_core_seconds / threads;
    return wall <= kHelperBatchSeconds &&
           wall <= kHelperShareOfGpuTime * (gpu_left_ - gpu_seconds_taken) / gpu_workers_;
  };
  std::optional<std::pair<std::size_t, std::uint64_t>> best;  // (shard, unit)
  double best_ratio = 0;
  for (std::size_t k = front_shard_; k < window_end; ++k) {
    ShardState& st = state_[k];
    while (st.order_next < st.order.size() && taken_[st.order[st.order_next]]) ++st.order_next;
    std::size_t looked = 0;
    for (std::size_t i = st.order_next; i < st.order.size() && looked < kHelperCandidates; ++i) {
      const std::uint64_t u = st.order[i];
      if (taken_[u]) continue;
      ++looked;
      const double r = ratio(u);
      if (r > kHelperMaxRatio) break;  // the order is by ratio: none further on either
      const plan::WorkUnit& w = plan_.units[u];
      if (!fits(plan::unit_seconds(w, plan::DeviceKind::cpu_core), plan::unit_seconds(w, plan::DeviceKind::gpu)))
        continue;
      if (!best || r < best_ratio) best = std::make_pair(k, u), best_ratio = r;
      break;
    }
  }
  if (!best) {
    // A unit that does not fit now never will (the GPUs' time left only falls): only the shards
    // beyond the window can bring new candidates, once the front moves on.
    more_later = window_end < shards_.size();
    return std::nullopt;
  }
  const auto [k, u] = *best;
  const plan::WorkUnit& first = plan_.units[u];
  const BatchLimits limits = limits_for(first.stage);
  const double cap = std::min(limits.seconds, max_wall_seconds * threads);
  double cpu = plan::unit_seconds(first, plan::DeviceKind::cpu_core);
  double gpu = plan::unit_seconds(first, plan::DeviceKind::gpu);
  std::uint64_t e = u + 1;
  while (e < shards_[k]->unit_end && !taken_[e] && e - u < limits.max_units && plan_.units[e].stage == first.stage &&
         plan_.units[e].side == first.side && ratio(e) <= kHelperRatioSpread * best_ratio && cpu < cap) {
    const double c = cpu + plan::unit_seconds(plan_.units[e], plan::DeviceKind::cpu_core);
    const double g = gpu + plan::unit_seconds(plan_.units[e], plan::DeviceKind::gpu);
    if (!fits(c, g)) break;
    cpu = c;
    gpu = g;
    ++e;
  }
  take(u, e);
  helper_holds_[u] = HelperHold{k, e, now_seconds(), false};
  return UnitClaim{k, u, e};
}

void UnitQueue::delivered(const UnitClaim& c) {
  std::lock_guard<std::mutex> hold(mutex_);
  const auto it = helper_holds_.find(c.begin);
  if (it != helper_holds_.end() && it->second.end == c.end) helper_holds_.erase(it);
}

void UnitQueue::close() {
  std::lock_guard<std::mutex> hold(mutex_);
  closed_ = true;
}

bool UnitQueue::closed() const {
  std::lock_guard<std::mutex> hold(mutex_);
  return closed_;
}

double UnitQueue::gpu_seconds_left() const {
  std::lock_guard<std::mutex> hold(mutex_);
  return gpu_left_;
}

}  // namespace screen::engine
