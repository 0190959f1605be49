#include "apps/screen/cli.hpp"

namespace screen::cli {

void add_merge(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("merge", "Merge a job's part files into results.h5");
  auto args = std::make_shared<std::vector<std::string>>();
  cmd->add_option("args", *args, "Arguments (see README)");
  cmd->allow_extras();
  cmd->callback([&action, args] { action = [args]() -> int { not_yet("`screen merge`", "the job engine"); }; });
}

}  // namespace screen::cli
