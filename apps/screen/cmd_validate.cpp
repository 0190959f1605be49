#include "apps/screen/cli.hpp"

namespace screen::cli {

void add_validate(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("validate", "Check a job manifest and its input files");
  auto manifest = std::make_shared<std::string>();
  cmd->add_option("manifest", *manifest, "Job manifest (YAML)")->required();
  cmd->callback([&action, manifest] { action = [manifest]() -> int { not_yet("`screen validate`", "the foundation"); }; });
}

}  // namespace screen::cli
