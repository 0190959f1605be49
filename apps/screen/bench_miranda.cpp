#include "apps/screen/cli.hpp"

namespace screen::cli {

void add_bench_miranda(CLI::App& bench, Action& action) {
  auto* cmd = bench.add_subcommand("miranda", "Benchmark: miRanda-style alignment");
  cmd->allow_extras();  // accepts the later interface's arguments until it lands
  cmd->callback([&action] { action = []() -> int { not_yet("`screen bench miranda`", "the miRanda stage"); }; });
}

}  // namespace screen::cli
