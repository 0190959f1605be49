#pragma once
// What GPUs this process can use. Safe to call on machines without a GPU or driver: it reports none.
#include <cstddef>
#include <string>
#include <thread>
#include <vector>

namespace screen::gpu {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int sm_major = 0;
  int sm_minor = 0;
  int multiprocessors = 0;
  std::size_t total_memory = 0;
  std::size_t free_memory = 0;
};

// True when this build has the CUDA paths compiled in.
bool built_with_cuda();

// Number of usable GPUs: CUDA's devices 0, 1, ... up to the first that this build's GPU code cannot run on
// (architectures.hpp), so that a usable GPU keeps CUDA's index; 0 when built without CUDA, or when no driver
// or device is present.
int gpu_count();

// Every device CUDA reports, usable or not.
int cuda_device_count();

// Why this build cannot use GPU `device` (its compute capability is not among the build's architectures, with
// the rebuild that fixes it), or empty when it can.
std::string gpu_unusable_reason(int device);

// Why gpu_count() is 0, for messages ("built without CUDA", the driver's error, a GPU this build has no code
// for, ...); empty otherwise.
std::string no_gpu_reason();

std::vector<DeviceInfo> list_devices();

// The device bytes a stage may plan its buffers for: `fraction` (resources.gpu_memory_fraction, clamped
// to [0, 1]) of `usable` (the GPU's free memory plus buffers the caller keeps and would reuse), at most
// `cap` (0: none), and never the last max(256 MiB, 2% of `total`) of `usable`. A planner counts its large
// buffers, not the small ones beside them, CUDA's rounding of each allocation or the runtime's own use,
// so even a fraction of 1 must leave room for those.
std::size_t planning_budget(std::size_t usable, std::size_t total, double fraction, std::size_t cap = 0);

// Starts the CUDA runtime and the given GPUs' contexts (all GPUs: an empty list) on a thread of its
// own, so that their start-up (a few tenths of a second) overlaps the caller's reading of inputs;
// the destructor waits for it. Errors are left for the caller's own CUDA calls to report.
class BackgroundInit {
 public:
  explicit BackgroundInit(std::vector<int> gpus = {});
  ~BackgroundInit();
  BackgroundInit(const BackgroundInit&) = delete;
  BackgroundInit& operator=(const BackgroundInit&) = delete;

 private:
  std::thread thread_;
};

}  // namespace screen::gpu
