#include "engine/scheduler.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <ctime>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/error.hpp"
#include "common/progress.hpp"
#include "common/work_profile.hpp"
#include "engine/batching.hpp"
#include "engine/folder.hpp"
#include "engine/host_task_queue.hpp"
#include "engine/low_priority_thread.hpp"
#include "engine/shard_assembly.hpp"
#include "engine/unit_queue.hpp"

namespace screen::engine {

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

[[noreturn]] void stopped(int sig) {
  if (sig == SIGINT)
    throw Error(ExitCode::interrupted, "interrupted (SIGINT); run the same command again to resume");
  throw Error(ExitCode::terminated, fmt::format("stopped by signal {}; run the same command again to resume", sig));
}

// CPU time of the whole process so far (all threads), for the per-batch debug lines.
double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Host tasks a worker may have waiting or running while its device computes the next batch.
constexpr std::size_t kHostTasksPending = 2;

}  // namespace

ScheduleResult run_shards(const ShardContext& ctx, const std::vector<const plan::Shard*>& todo,
                          const std::vector<std::shared_ptr<Device>>& workers, const RecordShard& record,
                          const std::atomic<int>* stop, double progress_interval) {
  if (workers.empty()) throw Error(ExitCode::internal, "run_shards: no worker");
  const plan::Plan& p = *ctx.plan;
  int gpu_workers = 0;
  for (const auto& w : workers) gpu_workers += w->is_gpu() ? 1 : 0;

  ScheduleResult result;
  std::mutex result_mutex;  // result, progress and the failure
  std::exception_ptr failure;
  std::atomic<bool> failed{false};

  std::uint64_t total_units = 0;
  for (const auto* s : todo) total_units += s->units();
  Progress progress("run", "units", total_units, progress_interval);
  std::uint64_t units_done = 0;
  if (ctx.profile)
    for (const auto& w : workers) ctx.profile->add_worker(w->name());
  double profile_saved = -1e300;
  const double profile_every = std::min(progress_interval, 10.0);
  // The ETA follows the estimated seconds of the units (on the GPU when a worker has one), so that
  // many cheap units (miRanda) before expensive ones (BPMax) do not mislead it.
  const plan::DeviceKind kind = gpu_workers > 0 ? plan::DeviceKind::gpu : plan::DeviceKind::cpu_core;
  std::vector<double> work_before(p.units.size() + 1, 0.0);  // prefix sums over the plan's units
  for (std::size_t u = 0; u < p.units.size(); ++u)
    work_before[u + 1] = work_before[u] + plan::unit_seconds(p.units[u], kind);
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

  // The open shards' parts (by index into todo); set under the queue's lock when a shard opens.
  std::vector<std::unique_ptr<ShardAssembly>> parts(todo.size());
  auto finish_shard = [&](std::size_t k, const std::string& worker) {
    const plan::Shard& s = *todo[k];
    const ShardResult r = parts[k]->commit(worker);
    {
      std::lock_guard<std::mutex> hold(*ctx.store_mutex);
      record({s.id, part_name(s.id), r.checksum}, r.wall_seconds, r.devices);
      remove_checkpoints(ctx.output, s.id);
    }
    std::lock_guard<std::mutex> hold(result_mutex);
    result.ran.push_back(s.id);
    result.devices[s.id] = r.devices;
    result.units_computed += r.units_computed;
    result.units_resumed += r.units_resumed;
    result.checkpoints += r.checkpoints;
    spdlog::debug("shard {} done by {}: {} units ({} from checkpoints) in {:.2f} s", s.id, r.devices, s.units(),
                  r.units_resumed, r.wall_seconds);
  };
  UnitQueue queue(p, todo, gpu_workers, [&](std::size_t k) {
    parts[k] = std::make_unique<ShardAssembly>(ctx, *todo[k]);
    const plan::Shard& s = *todo[k];
    const std::uint64_t from = parts[k]->resumed_to();
    if (from > s.unit_begin) on_units(s.unit_begin, from, true);
    if (from == s.unit_end) finish_shard(k, "");  // every unit was in the checkpoints
    return from;
  });
  auto should_stop = [&] { return failed.load() || (stop && stop->load() != 0); };
  auto fail = [&](std::exception_ptr e) {
    {
      std::lock_guard<std::mutex> hold(result_mutex);
      if (!failure) failure = e;
    }
    failed = true;
    queue.close();
  };

  // Checkpoints land near their interval: a batch takes at most half of it.
  const double batch_cap = ctx.checkpoint_every > 0 ? static_cast<double>(ctx.checkpoint_every) / 2 : 0.0;

  auto work = [&](Device& device, bool helper) {
    std::optional<LowPriorityThread> low;
    if (helper) low.emplace();
    const std::string name = device.name();
    const UnitQueue::LimitsFor limits_for = [&device](plan::StageKind k) { return device.batch_limits(k); };
    // Hands a batch's rows to its shard's part.
    auto deliver = [&](const UnitClaim& c, store::StageRows& rows, bool count_write) {
      const ShardAssembly::Delivery d =
          parts[c.shard]->deliver(c.begin, c.end, std::move(rows), count_write ? name : std::string(), name);
      queue.delivered(c);
      if (!d.accepted) return;  // delivered before (a helper's batch taken again)
      on_units(c.begin, c.end, false);
      // After a stop request nothing is committed: the shard's rows go to a checkpoint with the
      // others' (below), and the next run commits the part from it at once.
      if (d.complete && !should_stop()) finish_shard(c.shard, count_write ? name : std::string());
    };
    std::optional<HostTaskQueue> tasks;  // started with the first host task; drained before leaving
    try {
      for (;;) {
        std::optional<UnitClaim> claim;
        bool more_later = false;
        if (!should_stop())
          claim = helper ? queue.take_helper(limits_for, batch_cap, more_later) : queue.take_front(limits_for, batch_cap);
        if (!claim) {
          if (!more_later || should_stop()) break;
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
          continue;
        }
        const UnitClaim c = *claim;
        const plan::StageKind stage = p.units[c.begin].stage;
        auto rows = std::make_shared<store::StageRows>();
        Device::HostTask host;
        // The device's part of the batch (on the low-priority thread for the helper).
        auto call = [&] {
          const work_profile::Counters before = work_profile::this_thread();
          const auto t0 = Clock::now();
          const double cpu0 = process_cpu_seconds();
          host = device.start({stage, &p.units[c.begin], c.end - c.begin}, *ctx.inputs, *ctx.params, *rows);
          if (spdlog::should_log(spdlog::level::debug)) {
            const double wall = seconds(t0, Clock::now());
            spdlog::debug("{}: {} batch of {} units [{}, {}) in {:.2f} s, the process's CPU {:.1f} cores on average",
                          name, manifest::stage_name(stage), c.end - c.begin, c.begin, c.end, wall,
                          wall > 0 ? (process_cpu_seconds() - cpu0) / wall : 0.0);
          }
          if (ctx.profile) {
            const work_profile::Counters& after = work_profile::this_thread();
            ctx.profile->add_batch(name, stage, c.end - c.begin, seconds(t0, Clock::now()),
                                   after.gpu_seconds - before.gpu_seconds,
                                   after.traceback_seconds - before.traceback_seconds);
          }
        };
        if (low)
          low->run(call);
        else
          call();
        if (!host && device.is_gpu()) {
          // A GPU's rows are written on its task thread too (a shard's commit at its end, long
          // Nussinov structures), so that the GPU goes on with its next batch meanwhile.
          host = [](store::StageRows&) {};
        }
        if (!host) {
          deliver(c, *rows, true);
          continue;
        }
        // The host task and the delivery on the task thread, beside the device's next batches; its
        // time is counted as beside the device, its writes too.
        if (!tasks) tasks.emplace(kHostTasksPending);
        const double waited = tasks->submit([&, c, stage, rows, host = std::move(host)] {
          try {
            const auto h0 = Clock::now();
            host(*rows);
            deliver(c, *rows, false);
            if (ctx.profile) ctx.profile->add_host_task(name, stage, seconds(h0, Clock::now()), 0);
          } catch (...) {
            fail(std::current_exception());
          }
        });
        if (ctx.profile && waited > 0) ctx.profile->add_host_task(name, stage, 0, waited);
        if (waited > 0.05)
          spdlog::debug("{}: waited {:.2f} s for its host tasks after {} units [{}, {})", name, waited,
                        manifest::stage_name(stage), c.begin, c.end);
      }
      if (tasks) tasks->drain();
    } catch (...) {
      if (workers.size() > 1) {
        try {
          throw;
        } catch (const std::exception& e) {
          spdlog::warn("worker {} failed: {}; stopping the other workers", name, e.what());
        } catch (...) {
        }
      }
      fail(std::current_exception());
      if (tasks) tasks->drain();
    }
  };

  {
    const bool with_helper = gpu_workers > 0;
    std::vector<std::thread> threads;
    threads.reserve(workers.size());
    for (const auto& w : workers) {
      const bool helper = with_helper && !w->is_gpu();
      if (workers.size() == 1)
        work(*w, helper);
      else
        threads.emplace_back(work, std::ref(*w), helper);
    }
    for (auto& t : threads) t.join();
  }

  // A stop or an error: every open shard keeps what it holds in order as a checkpoint.
  for (std::size_t k = 0; k < todo.size(); ++k) {
    if (!parts[k] || parts[k]->committed()) continue;
    try {
      parts[k]->save_checkpoint(workers.front()->name());
    } catch (const std::exception& e) {
      spdlog::warn("shard {}: no checkpoint saved at the stop: {}", todo[k]->id, e.what());
    }
    parts[k]->abandon();
  }
  if (failure) std::rethrow_exception(failure);
  if (stop && stop->load() != 0) stopped(stop->load());
  for (std::size_t k = 0; k < todo.size(); ++k)
    if (!parts[k] || !parts[k]->committed())
      throw Error(ExitCode::internal, fmt::format("run_shards: shard {} was left incomplete", todo[k]->id));
  progress.finish();
  return result;
}

}  // namespace screen::engine
