// `screen status OUTPUT`: shards and units done, throughput and ETA of a job's output folder, from
// run.info, the journal and the timing log (lib/engine/engine.hpp, job_status).
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "apps/screen/cli.hpp"
#include "common/progress.hpp"
#include "engine/engine.hpp"

namespace screen::cli {

namespace {

int run_status(const std::string& output) {
  const engine::StatusReport r = engine::job_status(output);
  fmt::print("output:   {}\nmanifest: {}\n", output, r.manifest_path);
  fmt::print("shards:   {}/{} done\n", r.shards_done, r.shards_total);
  fmt::print("units:    {}/{} done ({:.1f}%)\n", r.units_done, r.units_total,
             r.units_total ? 100.0 * static_cast<double>(r.units_done) / static_cast<double>(r.units_total) : 100.0);
  if (r.units_per_second > 0)
    fmt::print("rate:     {:.1f} units/s over {} of shard time\n", r.units_per_second, human_duration(r.wall_seconds));
  if (!r.pending.empty()) {
    fmt::print("eta:      {}\n", r.eta_seconds >= 0 ? human_duration(r.eta_seconds) : std::string("unknown"));
    std::string ids;
    for (std::size_t i = 0; i < r.pending.size() && i < 20; ++i) ids += (i ? " " : "") + std::to_string(r.pending[i]);
    fmt::print("pending:  {}{}\n", ids, r.pending.size() > 20 ? " ..." : "");
  }
  fmt::print("results:  {}\n", r.results_present ? output + "/results.h5" : std::string("not merged yet"));
  return 0;
}

}  // namespace

void add_status(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("status", "Show the progress of a job's output directory");
  auto out = std::make_shared<std::string>();
  cmd->add_option("output", *out, "The job's output folder")->required();
  cmd->callback([&action, out] { action = [out]() -> int { return run_status(*out); }; });
}

}  // namespace screen::cli
