// `screen plan MANIFEST [--shards N]`: the shards a run would execute (lib/plan/plan.hpp): per
// shard its id, unit range, estimated seconds on one GPU and on one CPU core and the largest
// unit's memory estimate; then the records that are skipped, with the reason.
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "apps/screen/cli.hpp"
#include "common/error.hpp"
#include "engine/inputs.hpp"
#include "manifest/load_manifest.hpp"
#include "plan/plan.hpp"

namespace screen::cli {

namespace {

int run_plan(const std::string& path, int shards) {
  if (shards < 0) throw UsageError("--shards must be >= 1");
  const manifest::Job job = manifest::load_manifest(path);
  const engine::Inputs in = engine::load_inputs(job);
  const plan::Plan p = plan::make_plan(job, in.query_lengths(), in.target_lengths(), shards);
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
  return 0;
}

}  // namespace

void add_plan(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("plan", "Print the shards a manifest would run, with cost and memory estimates");
  auto path = std::make_shared<std::string>();
  auto shards = std::make_shared<int>(0);
  cmd->add_option("manifest", *path, "Job manifest (YAML)")->required();
  cmd->add_option("--shards", *shards, "Shard count (default: sharding.shards of the manifest)");
  cmd->callback([&action, path, shards] { action = [path, shards]() -> int { return run_plan(*path, *shards); }; });
}

}  // namespace screen::cli
