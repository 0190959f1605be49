// `screen plan MANIFEST [--shards N]`: the shards a run would execute (lib/plan/plan.hpp): per
// shard its id, unit range, estimated seconds on one GPU and on one CPU core and the largest
// unit's memory estimate; then the records that are skipped and the work units the plan skips (too
// large for resources.max_unit_memory), with the reason. For workflows:
// `--count` prints only the shard count, `--output-folder` only the resolved output folder.
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "apps/screen/cli.hpp"
#include "common/error.hpp"
#include "engine/inputs.hpp"
#include "engine/results_spec.hpp"
#include "manifest/load_manifest.hpp"
#include "manifest/param_rules.hpp"
#include "plan/plan.hpp"

namespace screen::cli {

namespace {

struct PlanArgs {
  std::string path;
  int shards = 0;
  bool shards_given = false;  // --shards was on the command line (0 is then refused)
  bool count = false, output_folder = false;
};

int run_plan(const PlanArgs& a) {
  if (a.shards_given) manifest::rules::require_option("--shards", manifest::rules::shard_count(a.shards));
  if (a.count && a.output_folder) throw UsageError("--count and --output-folder print one value each; give one");
  const manifest::Job job = manifest::load_manifest(a.path);
  if (a.output_folder) {
    fmt::print("{}\n", job.output);
    return 0;
  }
  const engine::Inputs in = engine::load_inputs(job);
  const plan::Plan p = plan::make_plan(job, in.query_lengths(), in.target_lengths(), a.shards, in.target_both_strands);
  if (a.count) {
    engine::require_work(p);
    fmt::print("{}\n", p.shards.size());
    return 0;
  }
  fmt::print("job {}: {} queries, {} targets, {} work units, {} shards; plan {}\n", job.name, in.queries.size(),
             in.targets.size(), p.units.size(), p.shards.size(), p.hash.substr(0, 16));
  fmt::print("estimated: {:.1f} s on one GPU, {:.1f} s on one CPU core\n", p.gpu_seconds, p.cpu_core_seconds);
  fmt::print("shard\tunits\tunit_begin\tunit_end\tgpu_seconds\tcpu_core_seconds\tmemory_MB\n");
  for (const auto& s : p.shards)
    fmt::print("{}\t{}\t{}\t{}\t{:.3f}\t{:.3f}\t{:.1f}\n", s.id, s.units(), s.unit_begin, s.unit_end, s.gpu_seconds,
               s.cpu_core_seconds, static_cast<double>(s.memory_bytes) / 1e6);
  fmt::print("skipped records: {}\n", in.skipped.size());
  for (const auto& s : in.skipped)
    fmt::print("skipped\t{}\t{}\t{}\t{}\n", s.side, s.set, s.name, s.reason);
  // Work units too large for resources.max_unit_memory (left out of the shards, listed in /skipped).
  const auto units = engine::skipped_unit_rows(p, in);
  fmt::print("skipped units: {}\n", units.size());
  for (const auto& s : units) fmt::print("skipped\t{}\t{}\t{}\t{}\n", s.side, s.set, s.name, s.reason);
  std::fflush(stdout);
  engine::require_work(p);  // after the listing, which says why
  return 0;
}

}  // namespace

void add_plan(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("plan", "Print the shards a manifest would run, with cost and memory estimates");
  auto a = std::make_shared<PlanArgs>();
  cmd->add_option("manifest", a->path, "Job manifest (YAML)")->required();
  auto* shards = cmd->add_option("--shards", a->shards, "Shard count (default: sharding.shards of the manifest)");
  cmd->add_flag("--count", a->count, "Print only the number of shards (for workflows)");
  cmd->add_flag("--output-folder", a->output_folder, "Print only the job's output folder, resolved (for workflows)");
  cmd->callback([&action, a, shards] {
    a->shards_given = shards->count() > 0;
    action = [a]() -> int { return run_plan(*a); };
  });
}

}  // namespace screen::cli
