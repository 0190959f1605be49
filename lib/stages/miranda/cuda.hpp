#pragma once
// Host side of the miRanda GPU path, step 1 ("scan cells -> candidates") on the GPU
// (kernels/miranda/): every candidate cell (best >= threshold, best state not B) of many (query,
// target) pairs at once, exactly the cells collect_candidates finds, for the exact CPU
// post-processing (finish_pair) that makes the hits.
//
// Queries the GPU kernel does not take (longer than kernels::miranda::kMaxGpuQueryLength = 64, or
// parameters outside the 16-bit bounds of scan_fits_16bit) are scanned by the CPU SIMD scan inside
// the same call, so the result is always complete; GpuScanStats says how many went which way.
// Built only with CUDA; without it, gpu_available() is false and scan_candidates_gpu throws
// ResourceError.
#include <cstddef>
#include <vector>

#include "stages/miranda/miranda_defs.hpp"
#include "stages/miranda/reference.hpp"

namespace screen::miranda {

// Whether this build has the GPU path and a usable GPU.
bool gpu_available();

struct GpuScanOptions {
  int device = 0;
  // Reported target columns per chunk (one chunk per GPU thread half); 0: chosen to fill the GPU,
  // at least 4 warm-ups long. Any value >= 1 gives the same candidates (tests use small ones).
  int chunk_columns = 0;
  // Initial capacity of the device candidate buffer; a scan that finds more runs again with room
  // for all of them.
  std::size_t initial_capacity = std::size_t{1} << 20;
};

struct GpuScanStats {
  std::size_t gpu_queries = 0;   // queries scanned on the GPU
  std::size_t cpu_queries = 0;   // queries scanned by the CPU scan (too long, or not 16-bit exact)
  std::size_t candidates = 0;    // candidate cells found (both ways)
  int launches = 0;              // kernel launches (one per row variant per attempt)
  int retries = 0;               // attempts repeated because the candidate buffer overflowed
  int chunk_columns = 0;         // the chunk length used
  double kernel_ms = 0;          // device time of the kernels (events), last attempt
};

// The candidate cells of one (query, target) pair, in collect_candidates' order (row-major: i, then j).
struct PairCandidates {
  std::size_t query = 0;   // index into the queries given
  std::size_t target = 0;  // index into the targets given
  std::vector<Candidate> candidates;
};

// Every query against every target: the pairs with at least one candidate cell, ordered by query,
// then target. Needs negative gap costs (max_positive_span >= 0); throws Error(internal) otherwise.
std::vector<PairCandidates> scan_candidates_gpu(const SeqView* queries, std::size_t n_queries,
                                                const SeqView* targets, std::size_t n_targets,
                                                const ScoreModel& model, const GpuScanOptions& options = {},
                                                GpuScanStats* stats = nullptr);

}  // namespace screen::miranda
