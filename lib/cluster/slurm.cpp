#include "cluster/slurm.hpp"

#include <set>

#include <fmt/format.h>

#include "cluster/process.hpp"
#include "cluster/sbatch_script.hpp"
#include "common/error.hpp"

namespace screen::cluster {

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::size_t b = 0;
  while (true) {
    const std::size_t e = s.find(sep, b);
    parts.push_back(s.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  return parts;
}

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (const char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string t;
  for (const auto& x : v) t += (t.empty() ? "" : sep) + x;
  return t;
}

// Keeps the entries of the jobs asked about (squeue --me lists every job of the user).
std::vector<QueueEntry> only(const std::vector<QueueEntry>& all, const std::vector<std::string>& job_ids) {
  const std::set<std::string> wanted(job_ids.begin(), job_ids.end());
  std::vector<QueueEntry> kept;
  for (const auto& e : all)
    if (wanted.count(e.job_id)) kept.push_back(e);
  return kept;
}

// Runs a query command; false with `why` when it is absent or fails.
bool query(const std::vector<std::string>& argv, std::string& out, std::string& why) {
  if (find_program(argv[0]).empty()) {
    why = argv[0] + " is not installed";
    return false;
  }
  const ProcessResult r = run_process(argv);
  if (r.exit_code != 0) {
    why = fmt::format("`{}` failed (exit {}): {}", command_text(argv), r.exit_code, trim(r.err));
    return false;
  }
  out = r.out;
  return true;
}

}  // namespace

std::string sbatch(const std::vector<std::string>& argv) {
  if (find_program(argv.at(0)).empty())
    throw ResourceError(fmt::format("{}: command not found: `screen submit` needs SLURM's sbatch on PATH (SLURM "
                                    "client tools); `screen submit --dry-run` only writes the scripts",
                                    argv[0]));
  const ProcessResult r = run_process(argv);
  if (r.exit_code != 0)
    throw ResourceError(fmt::format("`{}` failed (exit {}): {}", command_text(argv), r.exit_code,
                                    trim(r.err).empty() ? trim(r.out) : trim(r.err)));
  const std::string line = trim(r.out);
  const std::string id = line.substr(0, line.find(';'));
  if (!all_digits(id))
    throw ResourceError(fmt::format("`{}` printed '{}', not a job id", command_text(argv), line));
  return id;
}

bool parse_job_id(const std::string& text, std::string& job_id, long long& task) {
  const auto u = text.find('_');
  if (u == std::string::npos) {
    if (!all_digits(text)) return false;
    job_id = text;
    task = -1;
    return true;
  }
  const std::string job = text.substr(0, u), index = text.substr(u + 1);
  if (!all_digits(job) || !all_digits(index) || index.size() > 12) return false;
  job_id = job;
  task = std::stoll(index);
  return true;
}

namespace {

// Rows "JOBID_TASK|STATE|..." of squeue or sacct output (rows whose id is not an array task, such as
// sacct's job steps "123_4.batch", are not wanted); `fill` takes the state and the other fields.
template <class Fill>
std::vector<QueueEntry> parse_queue_rows(const std::string& text, Fill fill) {
  std::vector<QueueEntry> entries;
  for (const auto& raw : split(text, '\n')) {
    const auto f = split(trim(raw), '|');
    if (f.size() < 2) continue;
    QueueEntry e;
    if (!parse_job_id(f[0], e.job_id, e.task)) continue;
    fill(f, e);
    entries.push_back(e);
  }
  return entries;
}

}  // namespace

std::vector<QueueEntry> parse_squeue(const std::string& text) {
  return parse_queue_rows(text, [](const std::vector<std::string>& f, QueueEntry& e) {
    e.state = f[1];
    if (f.size() > 2) e.reason = f[2];
  });
}

std::vector<QueueEntry> parse_sacct(const std::string& text) {
  return parse_queue_rows(text, [](const std::vector<std::string>& f, QueueEntry& e) {
    e.state = f[1].substr(0, f[1].find(' '));  // "CANCELLED by 0" -> CANCELLED
  });
}

bool squeue_jobs(const std::vector<std::string>& job_ids, std::vector<QueueEntry>& entries, std::string& why) {
  std::string out;
  if (!query({"squeue", "--me", "-h", "-r", "-o", "%i|%T|%r"}, out, why)) return false;
  entries = only(parse_squeue(out), job_ids);
  return true;
}

bool sacct_jobs(const std::vector<std::string>& job_ids, std::vector<QueueEntry>& entries, std::string& why) {
  if (job_ids.empty()) {
    entries.clear();
    return true;
  }
  std::string out;
  if (!query({"sacct", "-n", "-P", "-X", "-j", join(job_ids, ","), "-o", "JobID,State"}, out, why)) return false;
  entries = only(parse_sacct(out), job_ids);
  return true;
}

void scancel(const std::string& job_id) {
  const std::vector<std::string> argv = {"scancel", job_id};
  if (find_program(argv[0]).empty()) throw ResourceError("scancel: command not found (SLURM client tools)");
  const ProcessResult r = run_process(argv);
  if (r.exit_code != 0)
    throw ResourceError(fmt::format("`{}` failed (exit {}): {}", command_text(argv), r.exit_code, trim(r.err)));
}

}  // namespace screen::cluster
