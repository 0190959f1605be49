#pragma once
// The output folder of a job, as the engine keeps it: file names, the comparison of an earlier
// run's run.info with this run's, clearing for --restart, removing what dead runs left, trusting
// journal-recorded parts, and the checkpoint segments of each shard (store/checkpoint.hpp).
//
//   part-000042.h5                 shard 42's part (recorded in the journal after its rename)
//   part-000042.ckpt-000003.h5     segment 3 of shard 42's checkpoint chain (removed once the part
//                                  is recorded)
//   <any of them>.tmp.<pid>        being written (removed by the next run holding the lock)
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/inputs.hpp"
#include "engine/run_state.hpp"
#include "manifest/job.hpp"
#include "plan/plan.hpp"

namespace screen::engine {

std::string part_name(std::int64_t id);                                // "part-000042.h5"
std::string checkpoint_name(std::int64_t id, std::uint64_t sequence);  // "part-000042.ckpt-000003.h5"
std::string journal_path(const std::string& output);
std::string results_path(const std::string& output);

// This run's state (run.info) for the job, its inputs and plan.
RunState current_state(const manifest::Job& job, const Inputs& in, const plan::Plan& p);

// What differs between an earlier run's state and this one ("" when nothing does).
std::string differences(const RunState& old, const RunState& now);

// --restart: removes parts, checkpoints, journal, timing, run.info and results.
void clear_state(const std::string& output);

// Temporary files of runs that died (a crash, SIGKILL): "<name>.tmp.<pid>" of a part, a checkpoint,
// results.h5 or run.info. Only called with the lock held, so no live run owns them. With
// `only_shard` (a --shard task, which holds only that shard's lock), only that shard's files.
void remove_stale_temporaries(const std::string& output, const std::optional<std::int64_t>& only_shard);

struct ShardCheck {
  bool done = false;
  std::string reason;  // why a journal-recorded part was not trusted
};

// The shards of the plan whose journal entry names a part that verifies (complete, checksum equal
// to the content and to the journal's, same results settings and inputs).
std::map<std::int64_t, ShardCheck> check_shards(const std::string& output, const plan::Plan& p,
                                                const std::string& results_sha256,
                                                const std::vector<std::string>& input_sha256);

// The checkpoint segments of shard `id` in the folder, by sequence number (path by sequence).
std::map<std::uint64_t, std::string> list_checkpoints(const std::string& output, std::int64_t id);
// Removes them (errors ignored: a leftover segment is removed by a later run).
void remove_checkpoints(const std::string& output, std::int64_t id);

}  // namespace screen::engine
