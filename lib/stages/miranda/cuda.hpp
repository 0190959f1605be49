#pragma once
// Host side of the miRanda GPU path, step 1 ("scan cells -> candidates") on the GPU
// (kernels/miranda/): every candidate cell (best >= threshold, best state not B) of many (query,
// target) pairs at once, exactly the cells collect_candidates finds, for the exact CPU
// post-processing (finish_pair) that makes the hits.
//
// GpuScanner streams the targets through the GPU in batches: the non-empty targets form one stream
// of positions, cut into batches of batch_columns reported positions (a target may span batches;
// each position is reported by exactly one batch and one lane, see kernels/miranda/miranda_launch.hpp).
// Device and pinned host buffers are allocated once per scanner (two slots, so that batch b+1 scans
// while the caller post-processes batch b) and grow only when a batch needs more; everything the
// scanner allocates on the GPU stays within memory_fraction of the memory free when it starts, so
// any number of targets of any total length can be scanned.
//
// Queries the kernel does not take (longer than kernels::miranda::kMaxGpuQueryLength = 128, or
// parameters outside the 16-bit bounds of scan_fits_16bit) are listed by cpu_queries(): the caller
// scans them with the CPU SIMD scan (scan_candidates_gpu does so itself). Built only with CUDA;
// without it, gpu_available() is false and the scanner's constructor throws ResourceError.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "stages/miranda/miranda_defs.hpp"
#include "stages/miranda/reference.hpp"

namespace screen::miranda {

// Whether this build has the GPU path and a usable GPU.
bool gpu_available();

struct GpuScanOptions {
  int device = 0;
  // Reported positions per lane (one lane per GPU thread half); 0: chosen to fill the GPU, at least
  // 4 warm-ups long. Any value >= 1 gives the same candidates (tests use small ones).
  int chunk_columns = 0;
  // Reported positions per batch; 0: about an eighth of the targets' total (so that scanning and
  // post-processing overlap), between 2^20 and 2^26, within the memory budget. Any value >= 1 gives
  // the same candidates.
  std::size_t batch_columns = 0;
  // The most the scanner allocates on the GPU, as a fraction of the memory free when it starts.
  double memory_fraction = 0.5;
  // Capacity of each slot's device candidate buffer; 0: as the budget allows (up to 2^26). A batch
  // that finds more runs again with room for all of them (or, beyond the budget, in halves).
  std::size_t initial_capacity = 0;
};

struct GpuScanStats {
  std::size_t gpu_queries = 0;   // queries scanned on the GPU
  std::size_t cpu_queries = 0;   // queries scanned by the CPU scan (too long, or not 16-bit exact)
  std::size_t candidates = 0;    // candidate cells found (both ways)
  int launches = 0;              // kernel launches (one per row variant per batch and attempt)
  int retries = 0;               // batch scans repeated because the candidate buffer overflowed
  int chunk_columns = 0;         // the lane quota of the last batch
  std::size_t batches = 0;       // batches of the target stream
  std::size_t batch_columns = 0;  // reported positions per batch
  std::size_t device_bytes = 0;  // the most the scanner held on the GPU at once
  double kernel_ms = 0;          // device time of the kernels (events), summed over batches
};

// A candidate cell of (query, target): indices into the arrays the scanner was given.
struct FoundCandidate {
  std::uint32_t query = 0;
  std::uint32_t target = 0;
  Candidate cand;
};

class GpuScanner {
 public:
  // The arrays must outlive the scanner. Needs negative gap costs (max_positive_span >= 0); throws
  // Error(internal) otherwise, ResourceError without a usable GPU.
  GpuScanner(const SeqView* queries, std::size_t n_queries, const SeqView* targets, std::size_t n_targets,
             const ScoreModel& model, const GpuScanOptions& options = {});
  ~GpuScanner();
  GpuScanner(const GpuScanner&) = delete;
  GpuScanner& operator=(const GpuScanner&) = delete;

  // Queries the caller must scan on the CPU (too long for the kernel, or not 16-bit exact); queries
  // no cell of which can reach the threshold are in neither list.
  const std::vector<std::size_t>& cpu_queries() const;
  std::size_t batches() const;
  // Targets 0 .. targets_done(b) - 1 have all their positions in batches 0..b.
  std::size_t targets_done(std::size_t b) const;
  // Packs, uploads and launches batch b (asynchronous). At most two batches may be submitted and not
  // yet collected; batches are collected in the order submitted.
  void submit(std::size_t b);
  // Waits for batch b and appends its candidate cells (any order) to out.
  void collect(std::size_t b, std::vector<FoundCandidate>& out);
  const GpuScanStats& stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The candidate cells of one (query, target) pair, in collect_candidates' order (row-major: i, then j).
struct PairCandidates {
  std::size_t query = 0;   // index into the queries given
  std::size_t target = 0;  // index into the targets given
  std::vector<Candidate> candidates;
};

// Every query against every target (GPU batches, and the CPU scan for cpu_queries()): the pairs with
// at least one candidate cell, ordered by query, then target.
std::vector<PairCandidates> scan_candidates_gpu(const SeqView* queries, std::size_t n_queries,
                                                const SeqView* targets, std::size_t n_targets,
                                                const ScoreModel& model, const GpuScanOptions& options = {},
                                                GpuScanStats* stats = nullptr);

}  // namespace screen::miranda
