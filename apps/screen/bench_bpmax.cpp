#include "apps/screen/cli.hpp"

namespace screen::cli {

void add_bench_bpmax(CLI::App& bench, Action& action) {
  auto* cmd = bench.add_subcommand("bpmax", "Benchmark: BPMax interaction scoring");
  cmd->allow_extras();  // accepts the later interface's arguments until it lands
  cmd->callback([&action] { action = []() -> int { not_yet("`screen bench bpmax`", "the BPMax stage"); }; });
}

}  // namespace screen::cli
