#pragma once
// Merge: results.h5 (docs/results.md, schema_version 2) from a job's part files and its sequence
// tables. Every part is read and checked (complete, checksum, same manifest and inputs) before
// anything is written; rows of all parts are pooled, sorted by each table's order (query index,
// target index, position; tables.hpp) and checked for duplicates, so the file is identical however
// the work was sharded. Written under a temporary name, fsync'd and renamed into place.
//
// Memory: a table's rows from all parts are held at once (one table at a time is written).
#include <cstdint>
#include <string>
#include <vector>

#include "manifest/job.hpp"
#include "store/tables.hpp"

namespace screen::store {

constexpr int kSchemaVersion = 2;  // 2: /miranda/hits energy

// One input FASTA, as listed in the root attributes.
struct InputFile {
  std::string side;    // "query" or "target"
  std::string set;     // the manifest's set name
  std::string path;
  std::string sha256;
};

struct RunInfo {
  std::string command_line;
  std::vector<std::string> hosts;
  std::vector<std::string> devices;
  std::string created;  // "YYYY-MM-DDTHH:MM:SSZ"; empty: now
};

struct MergeSpec {
  const manifest::Job* job = nullptr;   // manifest text, hash, stages and their parameters
  std::vector<InputFile> inputs;        // the queries' sets then the targets', manifest order (as in parts)
  std::vector<SequenceRow> queries;     // /queries: every screened query record (index = row)
  std::vector<SequenceRow> targets;     // /targets
  std::vector<SkippedRow> skipped;      // /skipped
  std::vector<std::string> parts;       // part files
  std::vector<ShardRow> other_shards;   // shards without a part ("failed", ...), listed in /shards too
  RunInfo run;
};

struct MergeSummary {
  std::size_t parts = 0;
  std::uint64_t rows = 0;  // stage rows written, all tables
};

// Writes `output_path`. Throws ConflictError for a part of another manifest or other inputs, or
// when two parts cover the same shard or the same rows; ResourceError for an unreadable,
// incomplete or damaged part and for I/O failures; Error(internal) for rows that refer to
// sequences outside /queries or /targets.
MergeSummary merge_results(const MergeSpec& spec, const std::string& output_path);

}  // namespace screen::store
