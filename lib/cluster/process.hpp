#pragma once
// Running an external program (sbatch, squeue, ...) without a shell: fork + execvp with the
// arguments as given (no quoting problems), standard output and error captured.
#include <string>
#include <vector>

namespace screen::cluster {

struct ProcessResult {
  int exit_code = -1;  // the program's exit status; 128 + N when killed by signal N
  std::string out, err;
};

// The full path of `program` on PATH (or `program` itself when it contains a '/' and is
// executable); empty when not found.
std::string find_program(const std::string& program);

// Runs argv[0] (looked up on PATH) with argv; throws ResourceError when it cannot be started
// (not found: the message says so and names PATH).
ProcessResult run_process(const std::vector<std::string>& argv);

}  // namespace screen::cluster
