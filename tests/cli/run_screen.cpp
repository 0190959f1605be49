#include "tests/cli/run_screen.hpp"

#include <sys/wait.h>

#include <cstdio>
#include <stdexcept>

namespace screen::testing {

namespace {
std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') q += "'\\''";
    else q += c;
  }
  return q + "'";
}
}  // namespace

CommandResult run_screen(const std::vector<std::string>& args, const std::string& stdin_file) {
  std::string cmd = shell_quote(SCREEN_EXE);
  for (const auto& a : args) cmd += " " + shell_quote(a);
  cmd += stdin_file.empty() ? " < /dev/null" : " < " + shell_quote(stdin_file);
  cmd += " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) throw std::runtime_error("popen failed: " + cmd);
  CommandResult r;
  char buf[4096];
  std::size_t got;
  while ((got = fread(buf, 1, sizeof buf, pipe)) > 0) r.out.append(buf, got);
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

}  // namespace screen::testing
