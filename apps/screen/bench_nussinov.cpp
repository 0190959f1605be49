#include "apps/screen/cli.hpp"

namespace screen::cli {

void add_bench_nussinov(CLI::App& bench, Action& action) {
  auto* cmd = bench.add_subcommand("nussinov", "Benchmark: Nussinov folding");
  cmd->allow_extras();  // accepts the later interface's arguments until it lands
  cmd->callback([&action] { action = []() -> int { not_yet("`screen bench nussinov`", "the Nussinov stage"); }; });
}

}  // namespace screen::cli
