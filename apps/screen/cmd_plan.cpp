#include "apps/screen/cli.hpp"

namespace screen::cli {

void add_plan(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("plan", "Print the shards a manifest would run, with cost and memory estimates");
  auto args = std::make_shared<std::vector<std::string>>();
  cmd->add_option("args", *args, "Arguments (see README)");
  cmd->allow_extras();
  cmd->callback([&action, args] { action = [args]() -> int { not_yet("`screen plan`", "the job engine"); }; });
}

}  // namespace screen::cli
