#include "engine/scheduler.hpp"

#include <algorithm>
#include <csignal>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/error.hpp"
#include "common/progress.hpp"
#include "engine/folder.hpp"

namespace screen::engine {

namespace {

[[noreturn]] void stopped(int sig) {
  if (sig == SIGINT)
    throw Error(ExitCode::interrupted, "interrupted (SIGINT); run the same command again to resume");
  throw Error(ExitCode::terminated, fmt::format("stopped by signal {}; run the same command again to resume", sig));
}

// Estimated seconds of each shard per stage, on one GPU and on one CPU core.
struct ShardEstimate {
  double gpu[3] = {0, 0, 0}, cpu_core[3] = {0, 0, 0};
};

// Seconds `device` needs for a shard: each stage on the GPU when the device runs it there, else on
// its CPU threads.
double seconds_on(const Device& device, const ShardEstimate& e) {
  double t = 0;
  for (plan::StageKind k : {plan::StageKind::nussinov, plan::StageKind::miranda, plan::StageKind::bpmax}) {
    const auto i = static_cast<std::size_t>(k);
    t += device.batch_limits(k).kind == plan::DeviceKind::gpu ? e.gpu[i]
                                                              : e.cpu_core[i] / std::max(device.cpu_threads(), 1);
  }
  return t;
}

// The shards not yet handed out, and the first error.
class Queue {
 public:
  Queue(const plan::Plan& p, const std::vector<const plan::Shard*>& todo, const Device* first_gpu, int gpu_workers)
      : pending_(todo.begin(), todo.end()), first_gpu_(first_gpu), gpu_workers_(gpu_workers) {
    if (!first_gpu_) return;
    for (const plan::Shard* s : todo) {
      ShardEstimate& e = estimates_[s->id];
      for (std::uint64_t u = s->unit_begin; u < s->unit_end; ++u) {
        const plan::WorkUnit& w = p.units[u];
        const auto i = static_cast<std::size_t>(w.stage);
        e.gpu[i] += plan::unit_seconds(w, plan::DeviceKind::gpu);
        e.cpu_core[i] += plan::unit_seconds(w, plan::DeviceKind::cpu_core);
      }
    }
  }

  // The next shard for `device`, or nullptr when there is none it should take: a CPU worker beside
  // GPU workers leaves a shard it would finish after the GPU workers finished every pending shard.
  const plan::Shard* next(const Device& device) {
    std::lock_guard<std::mutex> hold(mutex_);
    if (pending_.empty() || failed_) return nullptr;
    const plan::Shard* s = pending_.front();
    if (!device.is_gpu() && first_gpu_) {
      double gpu_left = 0;
      for (const auto* p : pending_) gpu_left += seconds_on(*first_gpu_, estimates_.at(p->id));
      if (seconds_on(device, estimates_.at(s->id)) > gpu_left / gpu_workers_) return nullptr;
    }
    pending_.pop_front();
    return s;
  }

  void fail(std::exception_ptr e) {
    std::lock_guard<std::mutex> hold(mutex_);
    if (!failed_) error_ = e;
    failed_ = true;
  }
  bool failed() const { return failed_.load(); }
  std::exception_ptr error() const { return error_; }

 private:
  std::mutex mutex_;
  std::deque<const plan::Shard*> pending_;
  const Device* first_gpu_;
  int gpu_workers_;
  std::map<std::int64_t, ShardEstimate> estimates_;
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;
};

}  // namespace

ScheduleResult run_shards(const ShardContext& ctx, const std::vector<const plan::Shard*>& todo,
                          const std::vector<std::shared_ptr<Device>>& workers, const RecordShard& record,
                          const std::atomic<int>* stop, double progress_interval) {
  if (workers.empty()) throw Error(ExitCode::internal, "run_shards: no worker");
  int gpu_workers = 0;
  const Device* first_gpu = nullptr;
  for (const auto& w : workers) {
    if (!w->is_gpu()) continue;
    ++gpu_workers;
    if (!first_gpu) first_gpu = w.get();
  }
  Queue queue(*ctx.plan, todo, first_gpu, gpu_workers);
  std::uint64_t total_units = 0;
  for (const auto* s : todo) total_units += s->units();

  ScheduleResult result;
  std::mutex result_mutex;  // result and progress
  Progress progress("run", "units", total_units, progress_interval);
  std::uint64_t units_done = 0;
  auto should_stop = [&] { return queue.failed() || (stop && stop->load() != 0); };
  // The profile file follows the run (status shows it mid-run), saved at most every few seconds.
  if (ctx.profile)
    for (const auto& w : workers) ctx.profile->add_worker(w->name());
  double profile_saved = -1e300;
  const double profile_every = std::min(progress_interval, 10.0);
  // The ETA follows the estimated seconds of the units (on the GPU when a worker has one), so that
  // many cheap units (miRanda) before expensive ones (BPMax) do not mislead it.
  const plan::DeviceKind kind = first_gpu ? plan::DeviceKind::gpu : plan::DeviceKind::cpu_core;
  std::vector<double> work_before(ctx.plan->units.size() + 1, 0.0);  // prefix sums over the plan's units
  for (std::size_t u = 0; u < ctx.plan->units.size(); ++u)
    work_before[u + 1] = work_before[u] + plan::unit_seconds(ctx.plan->units[u], kind);
  double work_total = 0, work_done = 0, work_resumed = 0;
  for (const auto* s : todo) work_total += work_before[s->unit_end] - work_before[s->unit_begin];
  progress.set_work_total(work_total);
  auto on_units = [&](std::uint64_t begin, std::uint64_t end, bool resumed) {
    std::lock_guard<std::mutex> hold(result_mutex);
    units_done += end - begin;
    const double w = work_before[end] - work_before[begin];
    work_done += w;
    if (resumed) work_resumed += w;
    progress.update(units_done, work_done, work_resumed);
    if (ctx.profile && !ctx.profile_file.empty() && ctx.profile->wall_seconds() - profile_saved >= profile_every) {
      profile_saved = ctx.profile->wall_seconds();
      save_profile(ctx.profile_file, ctx.profile->table("running"));
    }
  };

  auto work = [&](Device& device) {
    try {
      while (!should_stop()) {
        const plan::Shard* s = queue.next(device);
        if (!s) break;
        const ShardResult r = run_shard(ctx, *s, device, should_stop, on_units);
        {
          std::lock_guard<std::mutex> hold(*ctx.store_mutex);
          record({s->id, part_name(s->id), r.checksum}, r.wall_seconds, device.name());
          remove_checkpoints(ctx.output, s->id);
        }
        std::lock_guard<std::mutex> hold(result_mutex);
        result.ran.push_back(s->id);
        result.devices[s->id] = device.name();
        result.units_computed += r.units_computed;
        result.units_resumed += r.units_resumed;
        result.checkpoints += r.checkpoints;
        spdlog::debug("shard {} done on {}: {} units ({} from checkpoints) in {:.2f} s", s->id, device.name(),
                      s->units(), r.units_resumed, r.wall_seconds);
      }
    } catch (const ShardStopped&) {
      // a stop request or another worker's error: already recorded where it matters
    } catch (const std::exception& e) {
      if (workers.size() > 1) spdlog::warn("worker {} failed: {}; stopping the other workers", device.name(), e.what());
      queue.fail(std::current_exception());
    } catch (...) {
      queue.fail(std::current_exception());
    }
  };

  if (workers.size() == 1) {
    work(*workers.front());
  } else {
    std::vector<std::thread> threads;
    threads.reserve(workers.size());
    for (const auto& w : workers) threads.emplace_back(work, std::ref(*w));
    for (auto& t : threads) t.join();
  }
  if (queue.error()) std::rethrow_exception(queue.error());
  if (stop && stop->load() != 0) stopped(stop->load());
  progress.finish();
  return result;
}

}  // namespace screen::engine
