#pragma once
// The workers of a run at once: one thread per device, a shared queue of pending shards handed out
// in plan order, each worker taking the next shard when it finishes one (results do not depend on
// who computed what: a part is per shard).
//
// - Journal and timing lines, checkpoint removal and every file write of the workers are serialized
//   (one mutex); a shard is recorded as soon as its part is committed.
// - A stop request (*stop != 0) or an error in one worker makes every worker stop at its next batch
//   boundary, saving a checkpoint of its shard (shard_runner.hpp); the error (the first one, if
//   several) is then rethrown, else Error(interrupted / terminated) for SIGINT / other signals.
// - With GPU workers, a CPU worker does not take a shard it would finish after the GPU workers
//   finished all pending shards (estimates: plan::unit_seconds per stage, on the GPU for the stages a
//   worker runs there, else on its CPU threads; the GPU workers' time is the pending shards' time on
//   the first GPU worker divided by their number), so it never holds up the end of a run.
// - Progress (done/total units, rate, ETA) is one line for all workers.
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/device.hpp"
#include "engine/shard_runner.hpp"
#include "store/journal.hpp"

namespace screen::engine {

struct ScheduleResult {
  std::vector<std::int64_t> ran;                // shards completed, in order of completion
  std::map<std::int64_t, std::string> devices;  // who ran each of them
  std::uint64_t units_computed = 0, units_resumed = 0, checkpoints = 0;
};

// record(entry, wall seconds, device name) writes the journal and timing lines of a committed part.
using RecordShard = std::function<void(const store::JournalEntry&, double, const std::string&)>;

ScheduleResult run_shards(const ShardContext& ctx, const std::vector<const plan::Shard*>& todo,
                          const std::vector<std::shared_ptr<Device>>& workers, const RecordShard& record,
                          const std::atomic<int>* stop, double progress_interval);

}  // namespace screen::engine
