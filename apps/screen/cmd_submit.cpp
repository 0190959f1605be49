#include "apps/screen/cli.hpp"

namespace screen::cli {

void add_submit(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("submit", "Submit a job's shards to SLURM as an array job plus a merge job");
  auto args = std::make_shared<std::vector<std::string>>();
  cmd->add_option("args", *args, "Arguments (see README)");
  cmd->allow_extras();
  cmd->callback([&action, args] { action = [args]() -> int { not_yet("`screen submit`", "it arrives with cluster support"); }; });
}

}  // namespace screen::cli
