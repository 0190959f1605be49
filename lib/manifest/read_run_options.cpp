// resources, sharding, checkpoint, cluster: how and where the job runs.
#include <fmt/format.h>

#include <algorithm>

#include "manifest/byte_size.hpp"
#include "manifest/duration.hpp"
#include "manifest/param_rules.hpp"
#include "manifest/sbatch_values.hpp"
#include "manifest/sections.hpp"

namespace screen::manifest {

namespace {

// `auto` (-> 0) or an integer the rule accepts; `what` says what the integer is, for the type error.
void read_auto_or_int(const Field& f, int& out, const std::string& what, std::string (*rule)(long long)) {
  if (f.is_word("auto")) {
    out = 0;
    return;
  }
  if (!f.node().IsScalar() || f.node().Scalar().find_first_not_of("+-0123456789") != std::string::npos) {
    f.problem(fmt::format("expected auto or {}, got {}", what, describe(f.node())));
    return;
  }
  if (auto v = f.integer(); v && f.accept(rule(*v))) out = static_cast<int>(*v);
}

void read_devices(const Field& f, Resources& r) {
  if (f.is_word("auto")) {
    r.devices = DeviceMode::automatic;
    return;
  }
  if (f.is_word("cpu")) {
    r.devices = DeviceMode::cpu;
    return;
  }
  if (!f.node().IsSequence()) {
    std::string hint = f.node().IsScalar() && f.node().Scalar().find_first_not_of("0123456789") == std::string::npos
                           ? "; write [" + f.node().Scalar() + "] for that one GPU"
                           : "";
    f.problem("expected auto, cpu or a list of GPU indices such as [0, 1], got " + describe(f.node()) + hint);
    return;
  }
  auto items = f.items("a list of GPU indices");
  if (!items) return;
  if (items->empty()) {
    f.problem("the list of GPU indices is empty (write cpu for no GPU)");
    return;
  }
  std::vector<int> ids;
  bool ok = true;
  for (const auto& item : *items) {
    auto v = item.integer(0, 1023);
    if (!v) {
      ok = false;
      continue;
    }
    if (std::find(ids.begin(), ids.end(), static_cast<int>(*v)) != ids.end()) {
      item.problem(fmt::format("GPU {} is listed twice", *v));
      ok = false;
      continue;
    }
    ids.push_back(static_cast<int>(*v));
  }
  if (ok) {
    r.devices = DeviceMode::gpus;
    r.gpu_ids = ids;
  }
}

// cluster.partition reaches both scripts' #SBATCH lines: SLURM's partition characters only.
void read_partition(const Field& f, Cluster& c) {
  auto v = f.text();
  if (!v) return;
  if (const std::string problem = partition_problem(*v); !problem.empty())
    f.problem(problem);
  else
    c.partition = *v;
}

// cluster.extra_sbatch: each entry exactly one sbatch option (it becomes one #SBATCH line, its
// value quoted there), never a second line.
void read_extra_sbatch(const Field& f, Cluster& c) {
  auto items = f.items("a list of sbatch options such as [\"--account=rna\"]");
  if (!items) return;
  for (const auto& item : *items) {
    auto v = item.text();
    if (!v) continue;
    std::string problem;
    if (parse_sbatch_option(*v, problem))
      c.extra_sbatch.push_back(*v);
    else
      item.problem(problem);
  }
}

}  // namespace

void read_resources(const Field& field, Resources& r) {
  Section s(field, {"devices", "cpu_threads", "gpu_memory_fraction", "max_unit_memory"});
  if (!s.ok()) return;
  if (s.has("devices")) read_devices(s["devices"], r);
  if (s.has("cpu_threads")) read_auto_or_int(s["cpu_threads"], r.cpu_threads, "a thread count", rules::cpu_threads);
  if (s.has("gpu_memory_fraction")) {
    if (auto v = s["gpu_memory_fraction"].number()) {
      if (!(*v > 0 && *v <= 1))
        s["gpu_memory_fraction"].problem(fmt::format("must be in (0, 1] (got {})", *v));
      else
        r.gpu_memory_fraction = *v;
    }
  }
  if (s.has("max_unit_memory")) {
    const Field f = s["max_unit_memory"];
    auto bytes = f.node().IsScalar() ? parse_byte_size(f.node().Scalar()) : std::nullopt;
    if (!bytes)
      f.problem("expected a memory size such as 64GiB, 512MiB or 100GB, got " + describe(f.node()));
    else
      r.max_unit_memory = *bytes;
  }
}

void read_sharding(const Field& field, Sharding& sh) {
  Section s(field, {"shards", "target_shard_minutes"});
  if (!s.ok()) return;
  if (s.has("shards")) read_auto_or_int(s["shards"], sh.shards, "a shard count", rules::shard_count);
  if (s.has("target_shard_minutes")) {
    if (auto v = s["target_shard_minutes"].number()) {
      if (*v <= 0)
        s["target_shard_minutes"].problem(fmt::format("must be > 0 (got {})", *v));
      else
        sh.target_shard_minutes = *v;
    }
  }
}

void read_checkpoint(const Field& field, Checkpoint& c) {
  Section s(field, {"every"});
  if (!s.ok() || !s.has("every")) return;
  const Field f = s["every"];
  if (f.node().IsScalar() && f.node().Scalar() == "0") {  // after every batch (mostly for tests)
    c.every_seconds = 0;
    return;
  }
  auto seconds = f.node().IsScalar() ? parse_duration(f.node().Scalar()) : std::nullopt;
  if (!seconds)
    f.problem("expected a duration with a unit, such as 30s, 5min, 2h or 1h30m, got " + describe(f.node()));
  else
    c.every_seconds = *seconds;
}

void read_cluster(const Field& field, Cluster& c) {
  Section s(field, {"scheduler", "partition", "gpus_per_task", "time_limit", "max_concurrent", "extra_sbatch"});
  if (!s.ok()) return;
  c.present = true;
  if (s.has("scheduler")) {
    if (auto v = s["scheduler"].choice({"slurm"})) c.scheduler = *v;
  }
  if (s.has("partition")) read_partition(s["partition"], c);
  if (s.has("gpus_per_task")) {
    if (auto v = s["gpus_per_task"].integer(0, 64)) c.gpus_per_task = static_cast<int>(*v);
  }
  if (s.has("time_limit")) {
    const Field f = s["time_limit"];
    auto seconds = f.node().IsScalar() ? parse_time_limit(f.node().Scalar()) : std::nullopt;
    if (!seconds) {
      // printable: a value with a newline must not break the message into two lines
      const std::string got = f.node().IsScalar() ? "'" + printable(f.node().Scalar()) + "'" : describe(f.node());
      f.problem("expected a time limit \"HH:MM:SS\" or \"D-HH:MM:SS\", got " + got);
    } else {
      c.time_limit = f.node().Scalar();
      c.time_limit_seconds = *seconds;
    }
  }
  if (s.has("max_concurrent")) {
    if (auto v = s["max_concurrent"].integer(0, 1'000'000)) c.max_concurrent = static_cast<int>(*v);
  }
  if (s.has("extra_sbatch")) read_extra_sbatch(s["extra_sbatch"], c);
}

}  // namespace screen::manifest
