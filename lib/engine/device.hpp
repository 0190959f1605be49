#pragma once
// Device: where a worker runs a batch of work units of one stage: the CPU pool, or one GPU with a
// few CPU threads beside it. The engine gives a device whole batches, sized by the device's
// batch_limits (batching.hpp). Results do not depend on the device.
//
// The GPU device: Nussinov and miRanda batches on the GPU, except the units whose GPU memory
// estimate (plan::WorkUnit::gpu_memory_bytes) exceeds the GPU's budget (resources.gpu_memory_fraction
// x the GPU's memory), which its CPU threads compute (batching.hpp: split_by_gpu_memory); BPMax
// batches through bpmax::interact_pairs_gpu when bpmax::gpu_available() (the GPU path routes
// too-large pairs to the CPU itself), else on its CPU threads (builds whose GPU BPMax path is absent
// or a placeholder report gpu_available() false). Rows come out in canonical unit order either way.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "engine/inputs.hpp"
#include "plan/plan.hpp"
#include "plan/stage_params.hpp"
#include "store/stage_rows.hpp"

namespace screen::engine {

// Units [first, first + count) of one stage (for Nussinov: of one side), in canonical order.
struct StageBatch {
  plan::StageKind stage = plan::StageKind::nussinov;
  const plan::WorkUnit* units = nullptr;
  std::size_t count = 0;
};

// How much work one batch for a device should hold (the engine checks for a stop request and takes
// checkpoints between batches).
struct BatchLimits {
  plan::DeviceKind kind = plan::DeviceKind::cpu_core;  // whose estimates (plan::unit_seconds) count
  double seconds = 8.0;            // estimated seconds of work of that kind (CPU: core-seconds)
  int parallel = 1;                // units worked on at once (CPU: threads): wall seconds x this = work
  std::size_t max_units = 4096;
  std::uint64_t memory_bytes = 0;  // GPU: budget for the sum of gpu_memory_bytes; 0: no limit
};

class Device {
 public:
  virtual ~Device() = default;
  virtual std::string name() const = 0;  // "cpu (2 threads)", recorded in part files
  virtual bool is_gpu() const { return false; }
  virtual int cpu_threads() const = 0;    // CPU threads it uses (for the scheduler's estimates)
  virtual BatchLimits batch_limits(plan::StageKind stage) const = 0;
  // Computes the batch and appends its rows (indices: rows of /queries and /targets) to `out`, in
  // canonical unit order.
  virtual void run(const StageBatch& batch, const Inputs& in, const plan::StageParams& params,
                   store::StageRows& out) = 0;

  // The same in two steps, so that the engine can run a batch's host work beside the device's next
  // batch: start() does what needs the device and returns the rest as a task that appends the
  // batch's rows to `out` (in canonical order) when run; the task may run on another thread and
  // must not touch the device. Inputs and params outlive it. Default: run() whole, no task.
  using HostTask = std::function<void(store::StageRows& out)>;
  virtual HostTask start(const StageBatch& batch, const Inputs& in, const plan::StageParams& params,
                         store::StageRows& out) {
    run(batch, in, params, out);
    return nullptr;
  }
};

// The CPU pool: `threads` OpenMP threads inside the stage batch calls (0: all cores).
std::unique_ptr<Device> make_cpu_device(int threads);

// GPU `gpu_index` with `cpu_threads` OpenMP threads (0: all cores) for its CPU-side work (miRanda's
// exact phase, units over the memory budget, BPMax without the GPU path). ResourceError when the
// build has no CUDA or there is no such GPU.
std::unique_ptr<Device> make_gpu_device(int gpu_index, int cpu_threads, double memory_fraction = 0.9);

}  // namespace screen::engine
