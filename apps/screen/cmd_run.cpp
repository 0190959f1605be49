#include "apps/screen/cli.hpp"

namespace screen::cli {

void add_run(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("run", "Run a job manifest end to end (resumes an interrupted run)");
  auto args = std::make_shared<std::vector<std::string>>();
  cmd->add_option("args", *args, "Arguments (see README)");
  cmd->allow_extras();
  cmd->callback([&action, args] { action = [args]() -> int { not_yet("`screen run`", "the job engine"); }; });
}

}  // namespace screen::cli
