#include "apps/screen/cli.hpp"

namespace screen::cli {

void add_align(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("align", "Find miRanda-style target sites on FASTA input");
  auto args = std::make_shared<std::vector<std::string>>();
  cmd->add_option("args", *args, "Arguments (see README)");
  cmd->allow_extras();
  cmd->callback([&action, args] { action = [args]() -> int { not_yet("`screen align`", "the miRanda stage"); }; });
}

}  // namespace screen::cli
