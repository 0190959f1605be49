#pragma once
// The batch interface of the miRanda stage: every query of a SequenceSet against every target of
// another, on the CPU, through the reference (align_pair per pair) or the fast path (SIMD scan of
// the target stream per query, then the exact post-processing per pair), with OpenMP. Results are
// the same for every method, thread count and ISA, in (query, target) order.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "seq/sequence_set.hpp"
#include "stages/miranda/cpu_scan.hpp"
#include "stages/miranda/reference.hpp"

namespace screen::miranda {

// gpu: the candidate scan on a GPU (GpuScanner, target batches), then the fast path's post-processing.
enum class Method { reference, cpu, gpu };

// "reference" or "cpu" (throws UsageError otherwise; the GPU is chosen as a device, not a method).
Method parse_method(const std::string& text);
const char* method_name(Method m);

// Method::gpu: where the wall time of run went (seconds, summed over batches), for benchmarks.
struct GpuPipelineTimes {
  double setup = 0;        // scanner: device buffers, query upload
  double scan_wait = 0;    // waiting for the GPU's batches (and downloading their candidates)
  double submit = 0;       // packing and uploading the next batch's targets
  double group = 0;        // candidates grouped by pair
  double finish = 0;       // exact post-processing (finish_pair, OpenMP)
  double energy = 0;       // duplex strings built, energies waited for, filter and cap applied
  double sink = 0;         // the caller's sink
  double cpu_queries = 0;  // queries the GPU does not take, on the CPU
};

struct BatchOptions {
  Method method = Method::cpu;
  int threads = 0;                  // 0: omp_get_max_threads()
  ScanIsa isa = ScanIsa::automatic;  // the fast path's scan
  int gpu_device = 0;                // Method::gpu: the GPU to use
  int gpu_chunk_columns = 0;         // Method::gpu: GpuScanOptions::chunk_columns (0: automatic)
  std::size_t gpu_batch_columns = 0;  // Method::gpu: GpuScanOptions::batch_columns (0: automatic)
  double gpu_memory_fraction = 0.5;   // Method::gpu: GpuScanOptions::memory_fraction
  GpuPipelineTimes* gpu_times = nullptr;  // Method::gpu: filled in when given
  // Queries query_begin..query_end-1 (clamped to the set) against every target.
  std::size_t query_begin = 0;
  std::size_t query_end = static_cast<std::size_t>(-1);
  // The letters of each record as read (for display: miRanda prints T or U, and IUPAC letters, as
  // the input had them), or nullptr: A C G U N.
  const std::vector<std::string>* query_letters = nullptr;
  const std::vector<std::string>* target_letters = nullptr;
  // Called now and then from one thread with the number of (query, target) pairs of this call
  // whose scan is complete.
  std::function<void(std::size_t pairs_done)> progress;
};

// The pairs with at least one hit (or truncated), ordered by query, then target; each PairResult
// carries its query_index and target_index.
std::vector<PairResult> align_batch(const seq::SequenceSet& queries, const seq::SequenceSet& targets,
                                    const Params& params, Method method = Method::cpu, int threads = 0);
std::vector<PairResult> align_batch(const seq::SequenceSet& queries, const seq::SequenceSet& targets,
                                    const Params& params, const BatchOptions& options);

// The same pairs, handed to `sink` part by part as they are finished (each part ordered by query,
// then target; the parts together are align_batch's result in another order). Method::gpu streams
// the targets through the GPU in batches and post-processes batch b on the CPU while the GPU scans
// batch b+1: one part per batch (the pairs of the targets whose last position it holds), then one
// per query the GPU does not take. Other methods: one part. The sink runs on the calling thread.
using PairSink = std::function<void(std::vector<PairResult>& part)>;
void align_batch_streamed(const seq::SequenceSet& queries, const seq::SequenceSet& targets, const Params& params,
                          const BatchOptions& options, const PairSink& sink);

}  // namespace screen::miranda
