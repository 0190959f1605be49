#pragma once
// ResultsReader: reads back a results.h5 written by merge_results (docs/results.md): the root
// attributes and each table. Used by the tests and by `screen export`.
#include <cstdint>
#include <string>
#include <vector>

#include "store/h5.hpp"
#include "store/merge.hpp"
#include "store/stage_rows.hpp"

namespace screen::store {

struct ResultsInfo {
  std::int64_t schema_version = 0;
  std::string screen_version;
  std::string git_commit;
  std::string job_name;
  std::string manifest;          // text as run
  std::string manifest_sha256;
  std::vector<InputFile> inputs;
  std::vector<StageKind> stages;  // manifest order
  std::string created;
  std::vector<std::string> hosts;
  std::vector<std::string> devices;
  std::string command_line;
};

class ResultsReader {
 public:
  // Opens the file and reads the root attributes; throws InputError (one line, no HDF5 stack) when
  // the file is missing, unreadable, not HDF5, damaged, or not a results file of a schema this
  // build reads.
  explicit ResultsReader(const std::string& path);

  const ResultsInfo& info() const { return info_; }
  bool has_stage(StageKind k) const;

  std::vector<SequenceRow> queries() const;
  std::vector<SequenceRow> targets() const;
  std::vector<SkippedRow> skipped() const;
  std::vector<ShardRow> shards() const;
  std::vector<NussinovRow> nussinov(Side side) const;  // throws when the stage is absent
  std::vector<MirandaHitRow> miranda_hits() const;
  std::vector<MirandaPairRow> miranda_pairs() const;
  std::vector<BpmaxScoreRow> bpmax_scores() const;
  std::vector<BpmaxStructureRow> bpmax_structures() const;
  StageRows stage_rows() const;  // every present stage table

  // The stage's group (its attributes are the stage's parameters).
  h5::Group stage_group(StageKind k) const;
  const h5::File& file() const { return file_; }

 private:
  std::string path_;
  h5::File file_;
  ResultsInfo info_;
};

}  // namespace screen::store
