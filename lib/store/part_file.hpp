#pragma once
// Part files: one HDF5 file per shard holding the rows the shard produced (the tables of the stages
// it ran, stage_rows.hpp) and, as root attributes, what a resume needs to trust it: shard id, unit
// range, manifest SHA-256, input SHA-256s, a "complete" flag and a content checksum.
//
// PartWriter writes under a temporary name ("<path>.tmp.<pid>"); commit() sets "complete", flushes
// (H5Fflush), closes, fsyncs and renames the file into place, then fsyncs the folder. Without
// commit() (an exception, a crash) nothing appears under the final name.
//
// The content checksum is SHA-256 over a canonical byte serialisation (part_checksum below), not
// over the HDF5 bytes, so it checks what was meant to be stored, whatever HDF5's layout.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "store/stage_rows.hpp"

namespace screen::store {

constexpr int kPartVersion = 2;  // 2: /miranda/hits energy

struct PartInfo {
  std::int64_t shard_id = 0;
  std::uint64_t unit_begin = 0;  // the shard's work units [unit_begin, unit_end) in plan order
  std::uint64_t unit_end = 0;
  std::string manifest_sha256;  // the manifest's results settings (manifest::Job::results_sha256)
  std::vector<std::string> input_sha256;  // every input FASTA: the queries' sets, then the targets', manifest order
  std::vector<StageKind> stages;          // the stages whose tables the part holds (any subset)
  double wall_seconds = 0.0;              // timing fields, set by set_timing before commit
  std::string device;
  std::string host;
};

// One table's share of the checksum: its place, row count and SHA-256 of its rows (hash_row).
struct TableDigest {
  std::string path;  // "miranda/hits"
  std::uint64_t rows = 0;
  std::string sha256;
};

// SHA-256 over "screen-part-1", the PartInfo fields (in declaration order; stages by name) and
// each present table's TableDigest in the fixed table order (stage_rows.hpp).
std::string part_checksum(const PartInfo& info, const std::vector<TableDigest>& tables);
// The digests of the tables `info.stages` selects, computed from rows.
std::vector<TableDigest> table_digests(const std::vector<StageKind>& stages, const StageRows& rows);

class PartWriter {
 public:
  // Creates the temporary file and the (empty) tables of info.stages. Throws ResourceError.
  PartWriter(std::string path, PartInfo info);
  ~PartWriter();  // without commit(): closes and removes the temporary file
  PartWriter(const PartWriter&) = delete;
  PartWriter& operator=(const PartWriter&) = delete;

  // Append rows to a table (in batches: each call is one HDF5 write per column). Appending to a
  // table of a stage the part does not hold is an internal error.
  void append_nussinov(Side side, const std::vector<NussinovRow>& rows);
  void append(const std::vector<MirandaHitRow>& rows);
  void append(const std::vector<MirandaPairRow>& rows);
  void append(const std::vector<BpmaxScoreRow>& rows);
  void append(const std::vector<BpmaxStructureRow>& rows);

  void set_timing(double wall_seconds, std::string device, std::string host);

  // Finishes the file and renames it into place; returns the content checksum.
  std::string commit();

  const std::string& path() const { return path_; }
  const std::string& temporary_path() const { return temp_path_; }

 private:
  struct Impl;
  std::string path_;
  std::string temp_path_;
  std::unique_ptr<Impl> impl_;
};

// A part file as read.
struct Part {
  PartInfo info;
  bool complete = false;
  std::string checksum;  // as stored ("" when absent)
  StageRows rows;
};

// other_version: written by a screen of another part format (kPartVersion); not damaged, not readable here.
enum class PartStatus { ok, missing, unreadable, incomplete, checksum_mismatch, different_manifest, different_inputs,
                        other_version };
const char* part_status_name(PartStatus s);

struct PartCheck {
  PartStatus status = PartStatus::ok;
  std::string reason;    // one line, naming the file; empty when ok
  std::string checksum;  // the recomputed content checksum (when the file could be read)
  bool ok() const { return status == PartStatus::ok; }
};

class PartReader {
 public:
  // Reads the attributes and every table; throws ResourceError (naming file and object) when the
  // file is missing, not HDF5, truncated or not a part file.
  static Part read(const std::string& path);

  // Checks a part read by read(): complete, checksum equal to the content, same manifest and inputs.
  static PartCheck check(const std::string& path, const Part& part, const std::string& manifest_sha256,
                         const std::vector<std::string>& input_sha256);

  // read + check; never throws for a bad file: the status and reason say what is wrong.
  static PartCheck verify(const std::string& path, const std::string& manifest_sha256,
                          const std::vector<std::string>& input_sha256);
};

}  // namespace screen::store
