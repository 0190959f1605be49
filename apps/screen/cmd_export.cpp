#include "apps/screen/cli.hpp"

namespace screen::cli {

void add_export(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("export", "Export a job's results as TSV or miRanda text");
  auto args = std::make_shared<std::vector<std::string>>();
  cmd->add_option("args", *args, "Arguments (see README)");
  cmd->allow_extras();
  cmd->callback([&action, args] { action = [args]() -> int { not_yet("`screen export`", "the job engine"); }; });
}

}  // namespace screen::cli
