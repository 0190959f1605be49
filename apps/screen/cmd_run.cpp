// `screen run MANIFEST [--restart] [--shard K] [--threads N] [--shards N]`: runs a job through the
// engine (lib/engine/engine.hpp): every shard not yet complete, then the merge into results.h5; or
// with --shard exactly one shard and no merge (what a SLURM array task runs; `--shard env` takes the
// shard from SLURM_ARRAY_TASK_ID, lib/cluster/shard_arg.hpp). A shard already complete is skipped
// with exit 0, so a requeued or repeated array task is harmless. SIGINT / SIGTERM stop at the next
// batch boundary, leaving the output folder resumable (exit 130 / 143).
#include <atomic>
#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "apps/screen/cli.hpp"
#include "cluster/shard_arg.hpp"
#include "common/error.hpp"
#include "engine/engine.hpp"
#include "gpu/device_info.hpp"
#include "manifest/load_manifest.hpp"
#include "manifest/param_rules.hpp"

namespace screen::cli {

namespace {

std::atomic<int> g_stop{0};

void on_stop_signal(int sig) { g_stop.store(sig); }

struct RunArgs {
  std::string manifest;
  bool restart = false;
  std::string shard;  // empty: every shard; a number, or "env" (SLURM_ARRAY_TASK_ID)
  int threads = 0;
  int shards = 0;
  bool shards_given = false;  // --shards was on the command line (0 is then refused, not "the manifest's")
};

int run_run(const RunArgs& a) {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  namespace rules = manifest::rules;  // the manifest's resources.cpu_threads and sharding.shards ranges
  rules::require_option("--threads", rules::cpu_threads(a.threads));
  if (a.shards_given) rules::require_option("--shards", rules::shard_count(a.shards));
  const long long shard = a.shard.empty() ? -1 : cluster::parse_shard_argument(a.shard);
  const manifest::Job job = manifest::load_manifest(a.manifest);
  // The GPUs start while run_job reads the inputs and plans.
  std::optional<gpu::BackgroundInit> gpu_start;
  if (job.resources.devices != manifest::DeviceMode::cpu) gpu_start.emplace(job.resources.gpu_ids);
  engine::RunOptions o;
  o.restart = a.restart;
  if (shard >= 0) o.shard = shard;
  o.threads = a.threads;
  o.shards = a.shards;
  o.stop = &g_stop;
  o.command_line = "screen run " + a.manifest + (a.restart ? " --restart" : "") +
                   (shard >= 0 ? fmt::format(" --shard {}", shard) : "") +
                   (a.threads > 0 ? fmt::format(" --threads {}", a.threads) : "") +
                   (a.shards > 0 ? fmt::format(" --shards {}", a.shards) : "");
  const engine::RunSummary s = engine::run_job(job, o);
  std::printf("%s: %zu shards (%zu run now, %zu kept, %zu recomputed), %llu units\n", job.name.c_str(),
              s.shards_total, s.ran.size(), s.reused.size(), s.recomputed.size(),
              static_cast<unsigned long long>(s.units_total));
  if (!s.results.empty()) std::printf("results: %s\n", s.results.c_str());
  // The profile on stderr with the log (stdout stays the summary that scripts read).
  if (spdlog::should_log(spdlog::level::info)) std::fputs(engine::format_profile(s.profile).c_str(), stderr);
  return 0;
}

}  // namespace

void add_run(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("run", "Run a job manifest end to end (resumes an interrupted run)");
  auto a = std::make_shared<RunArgs>();
  cmd->add_option("manifest", a->manifest, "Job manifest (YAML)")->required();
  cmd->add_flag("--restart", a->restart, "Start over when the output folder holds another run's state");
  cmd->add_option("--shard", a->shard,
                  "Run only this shard (0-based, or `env`: $SLURM_ARRAY_TASK_ID); skipped when complete; no merge");
  cmd->add_option("--threads", a->threads, "CPU threads (default: resources.cpu_threads)");
  auto* shards = cmd->add_option("--shards", a->shards, "Shard count (default: sharding.shards of the manifest)");
  cmd->callback([&action, a, shards] {
    a->shards_given = shards->count() > 0;
    action = [a]() -> int { return run_run(*a); };
  });
}

}  // namespace screen::cli
