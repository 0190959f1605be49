#include "apps/screen/cli.hpp"

namespace screen::cli {

void add_status(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("status", "Show the progress of a job's output directory");
  auto args = std::make_shared<std::vector<std::string>>();
  cmd->add_option("args", *args, "Arguments (see README)");
  cmd->allow_extras();
  cmd->callback([&action, args] { action = [args]() -> int { not_yet("`screen status`", "the job engine"); }; });
}

}  // namespace screen::cli
