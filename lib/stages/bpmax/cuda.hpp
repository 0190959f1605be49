#pragma once
// Host side of the BPMax GPU path (kernels/bpmax/): the same tables as the reference (bpmax.md),
// computed on one GPU for many (query, target) pairs per launch, then the site (find_site's
// tie-breaking) and, on request, the traceback of the site recomputed on the host from the site's
// own window (the traceback code of reference.hpp), so scores, sites and structures equal the CPU
// paths'.
//
// Pairs whose tables do not fit the GPU's memory budget (gpu_table_bytes > the budget) are scored by
// the CPU fast path inside the same call, so the result is always complete; GpuStats counts them.
// Built only with CUDA; without it gpu_available() is false and interact_pairs_gpu throws
// ResourceError.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "stages/bpmax/interact.hpp"
#include "stages/bpmax/window_pruning.hpp"

namespace screen::bpmax {

// Whether this build has the GPU path and a usable GPU.
bool gpu_available();

// Device buffers kept from one score_pairs_gpu call to the next (GpuOptions::buffers): they only
// grow, so that the batches after the first allocate and free nothing (on the H100, a batch's
// cudaMalloc and cudaFree of its tables cost about a tenth of its kernels' time). One per worker
// thread (not thread-safe); release() frees them (before other work needs the GPU's memory).
class GpuBuffers {
 public:
  GpuBuffers();
  ~GpuBuffers();
  GpuBuffers(const GpuBuffers&) = delete;
  GpuBuffers& operator=(const GpuBuffers&) = delete;
  void release();
  std::size_t bytes() const;  // device memory held
  struct Impl;
  std::unique_ptr<Impl> impl;
};

struct GpuOptions {
  int device = 0;
  GpuBuffers* buffers = nullptr;  // kept between calls (nullptr: allocated and freed by each call)
  // Fraction of the GPU's free memory the call may use for tables (resources.gpu_memory_fraction).
  double memory_fraction = 0.9;
  // An absolute cap on that budget in bytes (0: none). Pairs above it go to the CPU, and batches
  // are cut so that each stays below it.
  std::size_t max_bytes = 0;
  // CPU threads for the pairs that go to the CPU and for tracebacks (0: OpenMP's default).
  int cpu_threads = 0;
  // Shared memory a block may use, in bytes (0: the device's opt-in maximum; a larger value is capped
  // at it): a smaller value runs the kernel forms of a GPU with less shared memory (an A100's 163 KB
  // takes the 64-column patch-up), for tests and `screen bench bpmax --max-shared-kb`.
  std::size_t max_shared_bytes = 0;
  // 2: each d1's slabs run in two groups by their query end, the late group on a second stream a d1 behind
  // the early one, so that one group's blocks fill the SMs the other's last wave leaves idle; 1: all on one
  // stream (`screen bench bpmax --slab-groups`). The results are the same.
  int slab_groups = 2;
  // Skip the target windows whose upper bound is below a computed window's score (window_pruning.hpp): the
  // same sites, less work on long targets. false computes every window (`screen bench bpmax --no-prune`).
  bool prune_windows = true;
};

struct GpuStats {
  std::size_t gpu_pairs = 0;  // pairs scored on the GPU
  std::size_t cpu_pairs = 0;  // pairs too large for the memory budget, scored on the CPU
  int launches = 0;           // kernel launches
  double kernel_ms = 0;       // device time of the kernels (events: each batch's first launch to its last)
  // The launches' own times by kind, summed (the two slab groups' launches overlap, so these may add up
  // to more than kernel_ms):
  double single_ms = 0;       //   single-strand tables S1, S2
  double term1_ms = 0;        //   double reduction (base case, terms 1, 2, 3, 6)
  double patch_ms = 0;        //   patch-up (terms 4, 5, 7)
  double transfer_ms = 0;     // device time of host<->device copies (events)
  // Query intervals of the GPU pairs, and how many of their slabs were computed: a repeated query substring's
  // slab is computed once (repeated_slabs.hpp).
  // With pruned windows these count the slabs of the seeds and segments run (window_pruning.hpp).
  long long slabs = 0, slabs_computed = 0;
  double bounds_ms = 0;  // the window bounds' kernel (its S tables are in single_ms)
  PruneStats pruning;    // the pairs whose windows were pruned
  // Host time on the calling thread (steady clock): describing batches, work lists and enqueueing their
  // uploads up to the first launch; waiting for a batch's kernels and results; the pruning's own work
  // between its phases (window_pruning.hpp: seeds, segments, sites).
  double prepare_ms = 0, wait_ms = 0, prune_host_ms = 0;
  // prepare_ms by part: the descriptors and codes; the repeated-slab maps and work lists; allocating device
  // buffers and enqueueing the uploads.
  double describe_ms = 0, lists_ms = 0, upload_ms = 0;
};

// Bytes of device memory the GPU path needs for one pair's tables.
std::size_t gpu_table_bytes(int n, int m, const Params& p);

// As interact_pairs: result k is pairs[k]'s; tracebacks by `traceback`. The same as
// score_pairs_gpu followed by trace_gpu_sites with options.cpu_threads.
std::vector<PairResult> interact_pairs_gpu(const std::vector<PairInput>& pairs, const Params& p,
                                           TracebackMode traceback, const GpuOptions& options = {},
                                           GpuStats* stats = nullptr);

// window_upper_bounds (window_pruning.hpp) of each pair, computed on the GPU as the pruning does (for tests).
// Every query at most kMaxBoundQuery long and every target at least its window.
std::vector<std::vector<std::int32_t>> window_upper_bounds_gpu(const std::vector<PairInput>& pairs, const Params& p,
                                                              const GpuOptions& options = {});

// The two phases of interact_pairs_gpu, so that a caller can run the host tracebacks of one batch
// beside the GPU's next batch. score_pairs_gpu: every pair's score and site (the pairs routed to
// the CPU complete, tracebacks included); `to_trace` lists the GPU pairs whose traceback the mode
// asks for, in ascending order. trace_gpu_sites: their structures, recomputed on the host from each
// site's window with `threads` OpenMP threads (0: OpenMP's default); results do not depend on it.
struct GpuScores {
  std::vector<PairResult> results;
  std::vector<std::size_t> to_trace;
};
GpuScores score_pairs_gpu(const std::vector<PairInput>& pairs, const Params& p, TracebackMode traceback,
                          const GpuOptions& options = {}, GpuStats* stats = nullptr);
void trace_gpu_sites(const std::vector<PairInput>& pairs, const Params& p, GpuScores& scores, int threads);

}  // namespace screen::bpmax
