#pragma once
// The workers of a run at once: one thread per device, drawing batches of work units from one
// queue across the pending shards and stages (unit_queue.hpp), so that every device works until
// the end. Shards stay the unit of resume and of SLURM tasks: each pending shard's part collects its
// rows in unit order whoever computed them (shard_assembly.hpp), and a shard is committed and
// recorded in the journal as soon as its last unit is in. Results do not depend on which worker
// computed what, nor on timing.
//
// - The GPU workers (or the CPU worker, when there is none) take the units in plan order; a CPU
//   worker beside GPU workers helps with the units where it does best against a GPU, only batches it
//   finishes well before the GPUs run out of work, on threads of the lowest priority (nice 19), so
//   that it uses only the cores the GPU workers' host work leaves idle.
// - Each worker keeps one batch's host task (Device::start: e.g. BPMax tracebacks) in flight while
//   the device computes its next batch.
// - Journal and timing lines, checkpoint removal and every file write are serialized (one mutex).
// - A stop request (*stop != 0) or an error in one worker makes every worker stop at its next batch
//   boundary; each open shard then saves a checkpoint of the rows it holds in order and abandons its
//   part; the error (the first one) is rethrown, else Error(interrupted / terminated) for SIGINT /
//   other signals.
// - Progress (done/total units, ETA weighted by the units' estimated seconds) is one line for all.
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/device.hpp"
#include "engine/shard_context.hpp"
#include "store/journal.hpp"

namespace screen::engine {

struct ScheduleResult {
  std::vector<std::int64_t> ran;                // shards completed, in order of completion
  std::map<std::int64_t, std::string> devices;  // who computed each of them ("a; b" when several did)
  std::uint64_t units_computed = 0, units_resumed = 0, checkpoints = 0;
};

// record(entry, wall seconds, devices) writes the journal and timing lines of a committed part.
using RecordShard = std::function<void(const store::JournalEntry&, double, const std::string&)>;

ScheduleResult run_shards(const ShardContext& ctx, const std::vector<const plan::Shard*>& todo,
                          const std::vector<std::shared_ptr<Device>>& workers, const RecordShard& record,
                          const std::atomic<int>* stop, double progress_interval);

}  // namespace screen::engine
