#include "apps/screen/cli.hpp"

namespace screen::cli {

void add_interact(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("interact", "Score RNA-RNA interactions with BPMax on FASTA input");
  auto args = std::make_shared<std::vector<std::string>>();
  cmd->add_option("args", *args, "Arguments (see README)");
  cmd->allow_extras();
  cmd->callback([&action, args] { action = [args]() -> int { not_yet("`screen interact`", "the BPMax stage"); }; });
}

}  // namespace screen::cli
