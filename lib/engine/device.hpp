#pragma once
// Device: where the engine runs a batch of work units of one stage: the CPU pool, or one GPU (its
// Nussinov and miRanda batches on the GPU, BPMax on the CPU until the GPU BPMax kernels exist). The
// engine gives a device whole batches. Results do not depend on the device.
#include <cstddef>
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

class Device {
 public:
  virtual ~Device() = default;
  virtual std::string name() const = 0;  // "cpu (2 threads)", recorded in part files
  virtual int parallelism() const = 0;   // units it works on at once (sizes the engine's batches)
  // Computes the batch and appends its rows (indices: rows of /queries and /targets) to `out`.
  virtual void run(const StageBatch& batch, const Inputs& in, const plan::StageParams& params,
                   store::StageRows& out) = 0;
};

// The CPU pool: `threads` OpenMP threads inside the stage batch calls (0: all cores).
std::unique_ptr<Device> make_cpu_device(int threads);

// GPU `gpu_index`: Nussinov batches through the GPU fold, miRanda batches through the GPU scan (its
// exact CPU post-processing, and BPMax batches, on `cpu_threads` OpenMP threads; 0: all cores).
// ResourceError when the build has no CUDA or there is no such GPU.
std::unique_ptr<Device> make_gpu_device(int gpu_index, int cpu_threads);

}  // namespace screen::engine
