#pragma once
// Checkpoints inside a shard: the rows a shard produced for a run of its units, saved while the
// shard is still being computed, so that a killed run resumes the shard where the last checkpoint
// ended instead of at its first unit.
//
// A shard's checkpoints form a chain of segments, each one HDF5 file holding the rows of the units
// [from, to) computed since the previous segment (sequence 0 starts at the shard's first unit,
// segment k + 1 starts where segment k ends), so every row is written once however many checkpoints
// a long shard takes. A segment is written like a part file (temporary name, flush, fsync, rename,
// fsync of the folder) and carries, as root attributes, the shard id and range, its own place in the
// chain, the manifest, input and plan SHA-256s and a content checksum (SHA-256 over those fields and
// the tables' digests, table_digests of part_file.hpp). The part file's format is unchanged: on
// resume the engine appends the segments' rows to the shard's part before computing the rest.
#include <cstdint>
#include <string>
#include <vector>

#include "store/stage_rows.hpp"

namespace screen::store {

constexpr int kCheckpointVersion = 2;  // 2: /miranda/hits energy

struct CheckpointInfo {
  std::int64_t shard_id = 0;
  std::uint64_t unit_begin = 0, unit_end = 0;  // the shard's units
  std::uint64_t sequence = 0;                  // place in the chain: 0, 1, 2, ...
  std::uint64_t from = 0, to = 0;              // the units whose rows this segment holds
  std::string manifest_sha256;  // the manifest's results settings (manifest::Job::results_sha256)
  std::vector<std::string> input_sha256;
  std::string plan_sha256;
  std::vector<StageKind> stages;  // the tables it holds (the shard part's stages)
};

// SHA-256 over "screen-checkpoint-1", the info fields in declaration order and the table digests.
std::string checkpoint_checksum(const CheckpointInfo& info, const StageRows& rows);

// Writes the segment durably at `path` (temporary name, fsync, rename). Throws ResourceError.
void write_checkpoint(const std::string& path, const CheckpointInfo& info, const StageRows& rows);

struct CheckpointSegment {
  CheckpointInfo info;
  StageRows rows;
};

// Reads a segment and checks it against `expected` (every field but the rows' checksum must be
// equal, `to` aside, which must lie in (from, unit_end]) and against its own checksum. Never throws
// for a bad file: returns false with `reason` (one line naming the file).
bool read_checkpoint(const std::string& path, const CheckpointInfo& expected, CheckpointSegment& out,
                     std::string& reason);

// The segment's place and unit range only (its root attributes; the rows and checksum are not read or
// checked), for progress reports. false (never throws) when the file is not a readable checkpoint.
bool read_checkpoint_span(const std::string& path, std::uint64_t& sequence, std::uint64_t& from, std::uint64_t& to);

}  // namespace screen::store
