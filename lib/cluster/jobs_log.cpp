#include "cluster/jobs_log.hpp"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "cluster/sbatch_script.hpp"
#include "common/output_file.hpp"
#include "engine/shard_lock.hpp"

namespace screen::cluster {

namespace {

constexpr const char* kHeader = "# submitted\tarray_job\tmerge_job\tshards\n";

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::string jobs_log_path(const std::string& output) { return slurm_dir(output) + "/jobs.tsv"; }

std::vector<Submission> read_jobs_log(const std::string& output) {
  std::vector<Submission> v;
  std::istringstream in(read_text(jobs_log_path(output)));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    Submission s;
    std::string shards;
    if (!std::getline(f, s.time, '\t') || !std::getline(f, s.array_job, '\t') || !std::getline(f, s.merge_job, '\t') ||
        !std::getline(f, shards))
      continue;
    try {
      s.shards = std::stoll(shards);
    } catch (const std::exception&) {
      continue;
    }
    v.push_back(s);
  }
  return v;
}

void append_jobs_log(const std::string& output, const Submission& s) {
  const std::string path = jobs_log_path(output);
  engine::FileLock lock(slurm_dir(output) + "/.lock-jobs", engine::FileLock::Mode::exclusive, true);
  std::string text = read_text(path);
  if (text.empty()) text = kHeader;
  if (text.back() != '\n') text += '\n';
  text += fmt::format("{}\t{}\t{}\t{}\n", s.time, s.array_job, s.merge_job, s.shards);
  OutputFile out(path);
  out.write(text);
  out.commit();
}

}  // namespace screen::cluster
