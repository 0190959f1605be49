#pragma once
// What the engine keeps in the output folder besides the part files and the journal:
//   run.info   written by the first run (and by --restart): the manifest, its results settings' SHA-256, the input
//              files with their SHA-256s, the plan hash and the shards. A later run compares them
//              and refuses to resume when they differ. Text, one "key<TAB>fields..." line each:
//                # screen run 2
//                manifest<TAB>path      manifest_sha256<TAB>hex (the results settings' hash)
//                plan_sha256<TAB>hex
//                input<TAB>side<TAB>set<TAB>sha256<TAB>path
//                units<TAB>count
//                shard<TAB>id<TAB>unit_begin<TAB>unit_end<TAB>gpu_seconds<TAB>cpu_core_seconds
//                sha256<TAB>hex         (SHA-256 of every byte before this line; always last)
//              Version 1 files ("# screen run 1", no sha256 line) are still read when complete.
//   timing     one line per shard run, appended after its journal line (for `screen status`):
//                id<TAB>units<TAB>end (Unix seconds)<TAB>wall seconds<TAB>device<TAB>host
#include <cstdint>
#include <string>
#include <vector>

#include "plan/plan.hpp"
#include "store/merge.hpp"

namespace screen::engine {

struct RunState {
  std::string manifest_path;
  std::string results_sha256;        // Job::results_sha256; run.info's manifest_sha256 line
  // The manifest file's own SHA-256, for the current state only (never written): a folder started
  // by a screen before the results-settings hash recorded that one instead.
  std::string manifest_file_sha256;
  std::string plan_sha256;
  std::vector<store::InputFile> inputs;
  std::uint64_t units = 0;
  std::vector<plan::Shard> shards;  // id, range and the two time estimates
};

std::string run_info_path(const std::string& output);
std::string timing_path(const std::string& output);

// Written under a temporary name, fsync'd and renamed.
void write_run_state(const std::string& output, const RunState& s);
// false when the file does not exist. InputError (exit 4) naming the file and the remedy (`screen run
// MANIFEST --restart`) when it is damaged: cut off, checksum wrong, a field missing or malformed, or
// shards that do not cover units 0..units in order.
bool read_run_state(const std::string& output, RunState& s);

struct TimingEntry {
  std::int64_t shard_id = 0;
  std::uint64_t units = 0;
  double end_unix = 0;
  double wall_seconds = 0;
  std::string device, host;
};
void append_timing(const std::string& output, const TimingEntry& e);
std::vector<TimingEntry> read_timing(const std::string& output);  // lines that do not parse are ignored

}  // namespace screen::engine
