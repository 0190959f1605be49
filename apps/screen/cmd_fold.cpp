#include "apps/screen/cli.hpp"

namespace screen::cli {

void add_fold(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("fold", "Fold single strands (Nussinov) on FASTA input");
  auto args = std::make_shared<std::vector<std::string>>();
  cmd->add_option("args", *args, "Arguments (see README)");
  cmd->allow_extras();
  cmd->callback([&action, args] { action = [args]() -> int { not_yet("`screen fold`", "the Nussinov stage"); }; });
}

}  // namespace screen::cli
