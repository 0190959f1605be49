#pragma once
// What every worker of a run shares while it computes shards (read only, but for the mutex), and
// what a committed shard reports.
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "engine/inputs.hpp"
#include "engine/run_profile.hpp"
#include "plan/plan.hpp"
#include "plan/stage_params.hpp"

namespace screen::engine {

struct ShardContext {
  const Inputs* inputs = nullptr;
  const plan::Plan* plan = nullptr;
  const plan::StageParams* params = nullptr;
  std::string output;
  std::string results_sha256;  // Job::results_sha256, recorded in the parts as manifest_sha256
  std::vector<std::string> input_sha256;
  std::vector<plan::StageKind> stages;  // the job's stages (the part's tables)
  std::string host;
  long checkpoint_every = 300;        // seconds; 0: after every batch
  std::mutex* store_mutex = nullptr;  // held around every file write and read of the workers (HDF5)
  RunProfile* profile = nullptr;      // where batches and writes are counted (optional)
  std::string profile_file;           // where the scheduler saves it every few seconds (empty: never)
};

struct ShardResult {
  std::string checksum;  // of the committed part
  std::string devices;   // the workers that computed its units, in the order they first did ("a; b")
  double wall_seconds = 0;           // from opening the part to its commit
  std::uint64_t units_computed = 0;  // by this run
  std::uint64_t units_resumed = 0;   // taken from checkpoints
  std::uint64_t checkpoints = 0;     // segments written by this run
};

// on_units(begin, end, resumed) reports the units [begin, end) done (resumed: taken from
// checkpoints rather than computed).
using UnitsDone = std::function<void(std::uint64_t begin, std::uint64_t end, bool resumed)>;

}  // namespace screen::engine
