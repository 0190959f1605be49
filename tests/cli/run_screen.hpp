#pragma once
// Runs the built `screen` executable with arguments and captures its exit code and output.
#include <string>
#include <vector>

namespace screen::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout and stderr together
};

// Each argument is shell-quoted; runs from the source tree (the tests' working directory), with
// standard input from stdin_file (default: empty).
CommandResult run_screen(const std::vector<std::string>& args, const std::string& stdin_file = "");

}  // namespace screen::testing
