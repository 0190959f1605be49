#include "apps/screen/cli.hpp"

namespace screen::cli {

void add_bench(CLI::App& app, Action& action) {
  auto* bench = app.add_subcommand("bench", "Benchmarks: print a table of timings for one stage");
  bench->require_subcommand(1);
  add_bench_fasta(*bench, action);
  add_bench_nussinov(*bench, action);
  add_bench_miranda(*bench, action);
  add_bench_bpmax(*bench, action);
  add_bench_energy(*bench, action);
  add_bench_ceiling(*bench, action);
}

}  // namespace screen::cli
