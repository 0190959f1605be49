#include "apps/screen/cli.hpp"

namespace screen::cli {

void add_bench_fasta(CLI::App& bench, Action& action) {
  auto* cmd = bench.add_subcommand("fasta", "Benchmark: FASTA reading throughput");
  cmd->allow_extras();  // accepts the later interface's arguments until it lands
  cmd->callback([&action] { action = []() -> int { not_yet("`screen bench fasta`", "the foundation"); }; });
}

}  // namespace screen::cli
