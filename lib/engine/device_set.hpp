#pragma once
// The workers of a run: which devices resources.devices and the thread count give.
//
//   devices: cpu                  one CPU worker with all T threads
//   devices: auto, no usable GPU  the same (logged)
//   devices: auto                 one worker per visible GPU
//   devices: [ids]                one worker per listed GPU (ResourceError for one that does not exist)
//
// With G GPU workers, each gets c = clamp(T / (G + 1), 1, 4) CPU threads for its CPU-side work
// (miRanda's exact phase, units over the GPU memory budget, BPMax while it has no GPU path); the
// R = T - G c threads left form one CPU worker when R >= 2 (a lone thread is worth more to the GPU
// workers: it goes to the first of them). T is --threads, else resources.cpu_threads, else all cores.
// Examples: T = 16, G = 1: GPU worker 4 threads + CPU worker 12; T = 16, G = 8: 8 x 1 + CPU 8;
// T = 2, G = 1: GPU worker 2 threads, no CPU worker.
#include <memory>
#include <vector>

#include "engine/device.hpp"
#include "manifest/job.hpp"

namespace screen::engine {

struct ThreadSplit {
  int per_gpu = 0;      // CPU threads of each GPU worker
  int first_gpu_extra = 0;  // one more for the first GPU worker (a leftover thread)
  int cpu_worker = 0;   // threads of the CPU worker; 0: none
};
ThreadSplit split_threads(int threads, int gpus);

// One Device per worker, GPU workers first. `threads` <= 0: all cores.
std::vector<std::shared_ptr<Device>> make_workers(const manifest::Resources& r, int threads);

}  // namespace screen::engine
