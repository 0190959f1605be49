#pragma once
// Where a stage call's time goes, as seen by the thread that made the call: seconds of GPU work
// (kernels and copies, from CUDA events where the stage records them, else the host's wall time of a
// synchronous GPU section) and seconds of tracebacks. The stage code adds to the calling thread's
// counters; the engine reads them before and after each batch (run_profile.hpp) and counts the rest
// of the batch's wall time as host work. Thread-local, so several workers never mix their figures.
#include <chrono>

namespace screen::work_profile {

struct Counters {
  double gpu_seconds = 0;
  double traceback_seconds = 0;
};

Counters& this_thread();
inline void add_gpu(double seconds) { this_thread().gpu_seconds += seconds; }
inline void add_traceback(double seconds) { this_thread().traceback_seconds += seconds; }

// Adds the wall time of its scope to one counter of the thread that created it.
template <void (*Add)(double)>
class ScopedSeconds {
 public:
  ScopedSeconds() : t0_(std::chrono::steady_clock::now()) {}
  ~ScopedSeconds() { Add(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count()); }
  ScopedSeconds(const ScopedSeconds&) = delete;
  ScopedSeconds& operator=(const ScopedSeconds&) = delete;

 private:
  std::chrono::steady_clock::time_point t0_;
};

// Host tracebacks; a synchronous GPU section whose kernels are not timed by events.
using TracebackTimer = ScopedSeconds<add_traceback>;
using GpuSectionTimer = ScopedSeconds<add_gpu>;

}  // namespace screen::work_profile
