#pragma once
// Job: the validated job manifest (YAML, see configs/ and docs/manifest.md) as
// typed values. Every field has the default a manifest gets when the line is omitted; the loader
// (load_manifest.hpp) fills it in and rejects anything out of range, so code reading a Job can
// trust it. Paths are already resolved against the manifest's folder.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/pair_weights.hpp"

namespace screen::manifest {

// Which strands of a target set miRanda and BPMax scan: the records as written, or also their
// reverse complements (docs/manifest.md, `targets[].strand`). Queries are always read as written.
enum class Strand { forward, both };
std::string_view strand_name(Strand s);  // "forward", "both"

// One named FASTA input (`queries[i]` or `targets[i]`).
struct SetSpec {
  std::string name;
  std::string fasta;             // resolved: absolute, lexically normal
  std::string fasta_as_written;  // as the manifest spells it
  std::size_t min_length = 1;    // shorter records are skipped and reported
  std::size_t max_length = 0;    // 0 = unlimited; longer records are skipped and reported
  Strand strand = Strand::forward;  // targets only
};

enum class StageKind { nussinov, miranda, bpmax };
std::string_view stage_name(StageKind kind);  // "nussinov", "miranda", "bpmax"

// stages.nussinov (docs/algorithms.md (Nussinov)).
struct NussinovParams {
  bool enabled = false;
  int min_loop = 3;            // a pair (i, j) needs j - i > min_loop
  int max_span = 0;            // 0 = unlimited; else a pair needs j - i < max_span
  PairWeights pairs{1, 1, 1, 1};  // {cg, au, gu, scale}: AU 1, CG 1, GU 1
  bool traceback = true;       // dot-bracket structure per sequence
};

// stages.miranda (docs/algorithms.md (miRanda)).
struct MirandaParams {
  bool enabled = false;
  double score_threshold = 140;  // a number, as miRanda's -sc takes it
  double scale = 4.0;          // seed-region scaling
  double gap_open = -9;        // truncated toward zero where used, as miRanda does
  double gap_extend = -4;
  bool strict = false;
  int max_hits_per_pair = 1000;  // 0 = unlimited
  bool energy = true;            // duplex energies and their filter, as a default miRanda run (docs/energy.md)
  double energy_threshold = 1.0;  // kcal/mol: hits with an energy below this are kept
  double temperature = 30.0;     // degrees C of the energy model (miRanda's)
};

enum class BpmaxTraceback { none, top, all };
std::string_view traceback_name(BpmaxTraceback t);  // "none", "top", "all"

// stages.bpmax (docs/algorithms.md (BPMax)).
struct BpmaxParams {
  bool enabled = false;
  int query_window = 0;        // 0 = the whole strand
  int target_window = 0;       // 0 = the whole strand
  PairWeights pairs{3, 2, 1, 1};  // {cg, au, gu, scale}: CG 3, AU 2, GU 1
  BpmaxTraceback traceback = BpmaxTraceback::top;
  double report_threshold = 0;  // user units; traceback "top" covers sites scoring >= this
};

enum class DeviceMode { automatic, cpu, gpus };

// resources
struct Resources {
  DeviceMode devices = DeviceMode::automatic;  // auto: all visible GPUs, else the CPU
  std::vector<int> gpu_ids;    // DeviceMode::gpus: these GPU indices (distinct, >= 0)
  int cpu_threads = 0;         // 0 = auto (all cores)
  double gpu_memory_fraction = 0.9;  // in (0, 1]
  // Work units whose estimated memory exceeds this are skipped and reported (in the plan, so the
  // decision does not depend on the machine); written `max_unit_memory: 64GiB`.
  std::uint64_t max_unit_memory = 64ull << 30;
};

// sharding
struct Sharding {
  int shards = 0;              // 0 = auto
  double target_shard_minutes = 30;  // > 0
};

// checkpoint
struct Checkpoint {
  long every_seconds = 300;    // >= 0; written `every: 5min`; `every: 0` = after every batch
};

// cluster (read by `screen submit`)
struct Cluster {
  bool present = false;        // the manifest has a cluster section
  std::string scheduler = "slurm";
  std::string partition;       // empty = the scheduler's default partition
  int gpus_per_task = 1;
  std::string time_limit = "24:00:00";  // as sbatch takes it
  long time_limit_seconds = 24 * 3600;
  int max_concurrent = 0;      // 0 = no limit on array tasks running at once
  std::vector<std::string> extra_sbatch;  // extra sbatch options, passed through
};

struct Job {
  int version = 1;
  std::string name;
  std::string output;             // resolved; default: results/<name> beside the manifest
  std::string output_as_written;
  std::vector<SetSpec> queries;   // at least one
  std::vector<SetSpec> targets;   // at least one when miranda or bpmax is enabled

  NussinovParams nussinov;
  MirandaParams miranda;
  BpmaxParams bpmax;
  std::vector<StageKind> stage_order;  // the enabled stages, in manifest order (never empty)

  Resources resources;
  Sharding sharding;
  Checkpoint checkpoint;
  Cluster cluster;

  std::string manifest_path;    // as given to the loader
  std::string manifest_text;    // the manifest exactly as read
  std::string manifest_sha256;  // SHA-256 of manifest_text, lower-case hex
  // SHA-256 of what the results depend on (results_identity.hpp): what a resume, the part files and
  // the checkpoints are checked against, so that devices, threads, checkpoint and cluster settings
  // may change between a stopped run and its resumption.
  std::string results_sha256;

  bool enabled(StageKind kind) const;
  // Whether any target set scans both strands (then the pair stages' tables carry a strand column).
  bool any_both_strands() const;
};

}  // namespace screen::manifest
