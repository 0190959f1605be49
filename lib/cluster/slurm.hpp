#pragma once
// SLURM's commands, run without a shell (process.hpp): sbatch to submit, squeue and sacct to ask
// what became of the tasks, scancel for a merge job whose dependency can no longer be met.
#include <string>
#include <vector>

namespace screen::cluster {

// Runs an sbatch command line (array_submit_command / merge_submit_command) with --parsable and
// returns the job id it prints ("12345", or "12345;cluster" → "12345"). Throws ResourceError when
// sbatch is not on PATH, or when it fails (the message holds its standard error).
std::string sbatch(const std::vector<std::string>& argv);

// One line of squeue or sacct for a job, or an array task of one ("12345_3": job "12345", task 3).
struct QueueEntry {
  std::string job_id;  // the job, or the array job an array task belongs to
  long long task = -1; // the array task index; -1 for a job that is not an array task
  std::string state;   // PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, ...
  std::string reason;  // squeue's reason (Dependency, DependencyNeverSatisfied, ...); empty from sacct
};

// Splits "12345_3" (array task), "12345" (job); false for anything else (e.g. "12345_[4-7%2]").
bool parse_job_id(const std::string& text, std::string& job_id, long long& task);

// What squeue (one line per array task: -r) knows about these jobs; false with `why` set when
// squeue is not installed or fails (no controller), so callers can fall back on other evidence.
bool squeue_jobs(const std::vector<std::string>& job_ids, std::vector<QueueEntry>& entries, std::string& why);

// The same from sacct (finished jobs too); false with `why` when sacct is absent or accounting is off.
bool sacct_jobs(const std::vector<std::string>& job_ids, std::vector<QueueEntry>& entries, std::string& why);

// Parsers of the two commands' outputs (exposed for the tests): squeue -h -r -o '%i|%T|%r',
// sacct -n -P -X -o JobID,State.
std::vector<QueueEntry> parse_squeue(const std::string& text);
std::vector<QueueEntry> parse_sacct(const std::string& text);

// scancel JOB; throws ResourceError with scancel's standard error when it fails.
void scancel(const std::string& job_id);

}  // namespace screen::cluster
