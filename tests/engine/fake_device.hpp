#pragma once
// Devices for the engine tests: a real CPU pool behind a name of its own, counting its batches and
// units, optionally posing as a GPU worker, slowed down, failing at a chosen batch, or raising a
// stop request after a chosen number of batches (as a signal handler would).
#include <atomic>
#include <chrono>
#include <csignal>
#include <memory>
#include <string>
#include <thread>

#include "common/error.hpp"
#include "common/work_profile.hpp"
#include "engine/device.hpp"

namespace screen::engine::testing {

class FakeDevice final : public Device {
 public:
  explicit FakeDevice(std::string name, int threads = 1) : name_(std::move(name)), cpu_(make_cpu_device(threads)) {}

  std::string name() const override { return name_; }
  int cpu_threads() const override { return cpu_->cpu_threads(); }
  bool is_gpu() const override { return gpu; }
  BatchLimits batch_limits(plan::StageKind stage) const override {
    BatchLimits l = cpu_->batch_limits(stage);
    if (gpu) {  // sized and estimated as a GPU would be (the work still runs on the CPU)
      l.kind = plan::DeviceKind::gpu;
      l.seconds = 8.0;
      l.parallel = 1;
    }
    if (max_units > 0) l.max_units = max_units;
    return l;
  }
  void run(const StageBatch& batch, const Inputs& in, const plan::StageParams& params,
           store::StageRows& out) override {
    const int n = ++batches;
    if (fail_at_batch > 0 && n == fail_at_batch) throw ResourceError(name_ + ": the fake device failed");
    if (delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    cpu_->run(batch, in, params, out);
    if (gpu_seconds_per_batch > 0) work_profile::add_gpu(gpu_seconds_per_batch);  // as a GPU stage call would
    units += batch.count;
    if (stop && stop_after_batches > 0 && n == stop_after_batches) stop->store(SIGTERM);
  }

  // split: start() computes the rows now but hands them over in a host task that first sleeps
  // task_delay_ms, as a GPU device hands over its tracebacks (Device::start).
  HostTask start(const StageBatch& batch, const Inputs& in, const plan::StageParams& params,
                 store::StageRows& out) override {
    if (!split) return Device::start(batch, in, params, out);
    auto rows = std::make_shared<store::StageRows>();
    run(batch, in, params, *rows);
    const int delay = task_delay_ms;
    std::atomic<int>* running = &tasks_running;
    std::atomic<int>* overlapped = &tasks_overlapped;
    return [rows, delay, running, overlapped](store::StageRows& to) {
      if (running->fetch_add(1) > 0) ++*overlapped;  // never more than one at a time is expected
      std::this_thread::sleep_for(std::chrono::milliseconds(delay));
      to = std::move(*rows);
      running->fetch_sub(1);
    };
  }

  bool split = false;
  int task_delay_ms = 0;
  std::atomic<int> tasks_running{0}, tasks_overlapped{0};
  bool gpu = false;  // poses as a GPU worker (for the scheduler)
  std::atomic<int> batches{0};
  std::atomic<std::size_t> units{0};
  int delay_ms = 0;
  double gpu_seconds_per_batch = 0;  // > 0: reported to the run profile as GPU time of each batch
  int fail_at_batch = 0;         // > 0: this batch throws ResourceError
  std::size_t max_units = 0;     // > 0: batches of at most this many units
  std::atomic<int>* stop = nullptr;
  int stop_after_batches = 0;    // > 0 (with stop): SIGTERM is requested after this batch

 private:
  std::string name_;
  std::unique_ptr<Device> cpu_;
};

}  // namespace screen::engine::testing
