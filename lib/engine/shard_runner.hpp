#pragma once
// One shard on one device: its part file (store::PartWriter), its units in device batches
// (batching.hpp), and checkpoints inside the shard (store/checkpoint.hpp).
//
// Checkpoints: after a batch, when `checkpoint_every` seconds have passed since the shard started or
// since the last checkpoint (0: after every batch), the rows of the units computed since the last
// checkpoint are saved as the next segment of the shard's chain (folder.hpp names them), durably
// (temporary name, fsync, rename). A stop (SIGINT/SIGTERM, or another worker's error) saves one too
// before abandoning the part. On a later run the chain is read back in order: every segment that
// verifies (same shard, range, manifest, inputs and plan; its place in the chain; its checksum)
// gives its rows to the part, and the shard continues at the unit after the last one; the first
// segment that does not verify is logged and removed with all later ones, and its units are
// recomputed. Rows go to the part in unit order either way, so the part holds exactly the rows of an
// uninterrupted run. The caller removes the chain once the part is recorded in the journal.
#include <cstdint>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/device.hpp"
#include "engine/inputs.hpp"
#include "engine/run_profile.hpp"
#include "plan/plan.hpp"
#include "plan/stage_params.hpp"

namespace screen::engine {

// What every worker of a run shares (read only, but for the mutex).
struct ShardContext {
  const Inputs* inputs = nullptr;
  const plan::Plan* plan = nullptr;
  const plan::StageParams* params = nullptr;
  std::string output;
  std::string manifest_sha256;
  std::vector<std::string> input_sha256;
  std::vector<plan::StageKind> stages;  // the job's stages (the part's tables)
  std::string host;
  long checkpoint_every = 300;  // seconds; 0: after every batch
  std::mutex* store_mutex = nullptr;  // held around the workers' file writes and reads
  RunProfile* profile = nullptr;      // where batches and writes are counted (optional)
  std::string profile_file;           // where the scheduler saves it every few seconds (empty: never)
};

struct ShardResult {
  std::string checksum;  // of the committed part
  double wall_seconds = 0;
  std::uint64_t units_computed = 0;  // by this call
  std::uint64_t units_resumed = 0;   // taken from checkpoints
  std::uint64_t checkpoints = 0;     // segments written by this call
};

// Thrown by run_shard when should_stop() became true at a batch boundary (the part abandoned, a
// checkpoint saved).
struct ShardStopped : std::runtime_error {
  ShardStopped() : std::runtime_error("shard stopped") {}
};

// Computes shard `s` on `device` and commits its part; not recorded in the journal (the caller does
// that, then remove_checkpoints). on_units(begin, end, resumed) reports the units [begin, end) done
// (resumed: taken from checkpoints rather than computed).
using UnitsDone = std::function<void(std::uint64_t begin, std::uint64_t end, bool resumed)>;
ShardResult run_shard(const ShardContext& ctx, const plan::Shard& s, Device& device,
                      const std::function<bool()>& should_stop, const UnitsDone& on_units);

}  // namespace screen::engine
