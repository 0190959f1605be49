#pragma once
// The plan of a job: every work unit in canonical order, cut into deterministic, cost-balanced
// shards, with a stable hash so that a resume can check it runs the plan the earlier run started.
//
// Work units, in canonical order: the stages in manifest order; within Nussinov every query
// (by row of /queries), then every target (by row of /targets); within miRanda and BPMax every
// (query, target) pair by query, then strand, then target: for each query every target as written
// (side 0), then the reverse complements (side 1) of the targets whose set has `strand: both`.
// A job without such a set has the units (and the plan hash) it always had.
//
// Cost estimates (operation counts of each stage's recurrence; the ops are of different kinds,
// so each stage's count is turned into seconds with a per-device-kind throughput):
//   nussinov  n^3/6 (the split term sum over i < k < j), with max_span s: n * min(n, s)^2 / 2
//   miranda   Lq * Lr (cells of the three-state DP; the scan dominates)
//   bpmax     bpmax::term1_updates(N, M, params): the windowed double split, about
//             (N^3/6) * M * W2^2 / 2 for a query of N nt against a target of M nt with window W2
// Seconds of a unit on a device kind: ops / throughput(stage, kind) + per_unit_seconds(stage, kind)
// (unit_seconds); the constants are calibrated from the README's Performance tables (plan.cpp says
// which row each comes from).
// Memory estimates (bytes one unit needs), for the CPU path (memory_bytes) and the GPU path
// (gpu_memory_bytes):
//   nussinov  CPU 2 n^2 while the score bound fits 16 bits (up to 65,535 nt with unit weights: the
//             mirrored table); beyond it n^2 (the compact path's tile-packed 16-bit offsets and
//             per-tile bases) while the pair weights are at most 64 score units, else 4 n^2.
//             GPU 2 n^2 with plain cells (the packed triangle of 32-bit cells, or of 16-bit ones
//             with room for the split-K scratch); with relative cells (beyond the 16-bit bound)
//             n^2 plus the bases and scratch (nussinov::gpu_fold_bytes)
//   miranda   12 (Lq + 1) + Lr on both (one DP column of three int32 states per query row, plus the
//             target)
//   bpmax     CPU bpmax::cpu_table_bytes(N, M, params); GPU bpmax::gpu_table_bytes when the build
//             has the GPU path (else the CPU figure)
// Skipped units: a unit whose CPU-path estimate exceeds resources.max_unit_memory (default 64 GiB)
// cannot run anywhere this job allows (the CPU path is the one every unit can fall back to), so the
// plan leaves it out of the shards and lists it in Plan::skipped with the reason; results.h5 lists
// it in /skipped. The limit comes from the manifest, never from the machine, so the plan and its
// hash are the same on every machine. Which units of a batch run on a GPU and which on its CPU
// threads (gpu_memory_bytes against the GPU's budget) is decided by the device at run time and
// does not change results.
//
// Shards are contiguous ranges [unit_begin, unit_end) of the canonical order (the part files and
// /shards record them so), cut where the running cost is nearest to k/K of the total; every shard
// holds at least one unit, and a shard costs at most total/K plus the largest unit.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "manifest/job.hpp"

namespace screen::plan {

using manifest::StageKind;

enum class DeviceKind { cpu_core, gpu };  // throughput of one CPU core, of one GPU
const char* device_kind_name(DeviceKind k);

// Work (stage-specific operations) per second of one CPU core or one GPU, and a fixed cost per unit
// (launch, traceback, post-processing), as measured (plan.cpp's seconds table); used for estimates,
// batch sizes and the scheduler's choices only. The plan itself (WorkUnit::cost, the automatic shard
// count) follows the frozen cost model below, so plans never change when the table is recalibrated.
double throughput(StageKind stage, DeviceKind kind);
double per_unit_seconds(StageKind stage, DeviceKind kind);
// The cost model: GPU operations per second and seconds per unit behind WorkUnit::cost (frozen).
double cost_throughput(StageKind stage);
double cost_per_unit(StageKind stage);

struct WorkUnit {
  StageKind stage = StageKind::nussinov;
  std::uint8_t side = 0;    // nussinov: 0 = a query, 1 = a target; pair stages: the target's strand (0 as
                            // written, 1 its reverse complement)
  std::uint64_t a = 0;      // nussinov: the sequence (row of /queries or /targets); pairs: the query
  std::uint64_t b = 0;      // pairs: the target; nussinov: 0
  double ops = 0;           // the recurrence's operation count (see above)
  std::uint64_t cost = 0;   // balancing weight: microseconds on one GPU under the frozen cost model (>= 1)
  std::uint64_t memory_bytes = 0;      // on the CPU path
  std::uint64_t gpu_memory_bytes = 0;  // on the GPU path
};

// Estimated seconds of one unit on one CPU core or one GPU.
double unit_seconds(const WorkUnit& u, DeviceKind kind);

// A unit left out of the plan, and why ("bpmax tables need 312.0 GiB on the CPU path, more than
// resources.max_unit_memory (64 GiB)").
struct SkippedUnit {
  WorkUnit unit;
  std::string reason;
};

struct Shard {
  std::int64_t id = 0;
  std::uint64_t unit_begin = 0, unit_end = 0;  // [begin, end) in canonical order
  std::uint64_t cost = 0;                      // sum of the units' costs
  double gpu_seconds = 0;                      // estimated seconds on one GPU
  double cpu_core_seconds = 0;                 // estimated seconds on one CPU core
  std::uint64_t memory_bytes = 0;              // the largest unit's memory estimate
  std::uint64_t units() const { return unit_end - unit_begin; }
};

struct Plan {
  std::vector<WorkUnit> units;        // the units to run (skipped ones left out)
  std::vector<SkippedUnit> skipped;   // in canonical order
  std::vector<Shard> shards;
  std::string hash;  // SHA-256 over the units (stage, side, a, b, cost), the shard ranges and the skipped units
  double gpu_seconds = 0, cpu_core_seconds = 0;
};

// Units of a job over the screened records (lengths by row of /queries and /targets; per target row,
// 1 where its set scans both strands; empty: none does).
std::vector<WorkUnit> make_units(const manifest::Job& job, const std::vector<std::size_t>& query_lengths,
                                 const std::vector<std::size_t>& target_lengths,
                                 const std::vector<std::uint8_t>& target_both_strands = {});

// The shard count: `requested` when > 0, else the job's sharding.shards when > 0, else
// ceil(total GPU seconds / (sharding.target_shard_minutes * 60)); never more than the units, at least 1.
int shard_count(const manifest::Job& job, const std::vector<WorkUnit>& units, int requested = 0);

// Cuts units into `shards` (>= 1) contiguous cost-balanced ranges with ids 0..K-1 (fewer when there
// are fewer units; none when there are no units).
std::vector<Shard> make_shards(const std::vector<WorkUnit>& units, int shards);

// Moves the units whose memory_bytes exceed max_bytes out of `units` into the result, with reasons.
std::vector<SkippedUnit> take_oversized(std::vector<WorkUnit>& units, std::uint64_t max_bytes);

// The skipped units' part of the hash is added only when there are any, so a plan without skips
// hashes as before.
std::string plan_hash(const std::vector<WorkUnit>& units, const std::vector<Shard>& shards,
                      const std::vector<SkippedUnit>& skipped = {});

// All of the above.
Plan make_plan(const manifest::Job& job, const std::vector<std::size_t>& query_lengths,
               const std::vector<std::size_t>& target_lengths, int requested_shards = 0,
               const std::vector<std::uint8_t>& target_both_strands = {});

}  // namespace screen::plan
