#pragma once
// <output>/slurm/jobs.tsv: one line per `screen submit`, appended (the file is rewritten under a
// temporary name, fsync'd and renamed, under <output>/slurm/.lock-jobs), so `screen status` can
// name the SLURM jobs of each shard:
//   # submitted<TAB>array_job<TAB>merge_job<TAB>shards
//   2026-11-23T03:10:00Z<TAB>1234<TAB>1235<TAB>4
#include <cstdint>
#include <string>
#include <vector>

namespace screen::cluster {

struct Submission {
  std::string time;  // UTC, ISO 8601
  std::string array_job, merge_job;
  std::int64_t shards = 0;
};

std::string jobs_log_path(const std::string& output);

// Every well-formed line, oldest first (none when the file does not exist).
std::vector<Submission> read_jobs_log(const std::string& output);

void append_jobs_log(const std::string& output, const Submission& s);

}  // namespace screen::cluster
