#include "manifest/describe.hpp"

#include <fmt/format.h>

#include "common/pair_weights.hpp"
#include "manifest/byte_size.hpp"
#include "manifest/duration.hpp"

namespace screen::manifest {

namespace {

std::string yes_no(bool b) { return b ? "yes" : "no"; }

std::string weights(const PairWeights& w) {
  return fmt::format("AU {} CG {} GU {}", format_score(w.au, w.scale), format_score(w.cg, w.scale),
                     format_score(w.gu, w.scale));
}

std::string lengths(const SetSpec& s) {
  const std::string strands = s.strand == Strand::both ? ", both strands" : "";
  if (s.max_length == 0) return fmt::format("length >= {}{}", s.min_length, strands);
  return fmt::format("length {}..{}{}", s.min_length, s.max_length, strands);
}

std::string sets(const char* label, const std::vector<SetSpec>& list) {
  std::string out;
  if (list.empty()) return fmt::format("{:<11} (none)\n", label);
  for (std::size_t i = 0; i < list.size(); ++i)
    out += fmt::format("{:<11} {}: {} ({})\n", i == 0 ? label : "", list[i].name, list[i].fasta, lengths(list[i]));
  return out;
}

std::string window(int w) { return w == 0 ? "0 (whole strand)" : std::to_string(w); }

std::string stage_line(const Job& job, StageKind kind) {
  switch (kind) {
    case StageKind::nussinov: {
      const auto& p = job.nussinov;
      return fmt::format("min_loop {}, max_span {}, pairs {}, traceback {}", p.min_loop,
                         p.max_span == 0 ? std::string("0 (unlimited)") : std::to_string(p.max_span), weights(p.pairs),
                         yes_no(p.traceback));
    }
    case StageKind::miranda: {
      const auto& p = job.miranda;
      return fmt::format("score_threshold {}, scale {}, gap_open {}, gap_extend {}, strict {}, max_hits_per_pair {}, {}",
                         p.score_threshold, p.scale, p.gap_open, p.gap_extend, yes_no(p.strict),
                         p.max_hits_per_pair == 0 ? std::string("0 (unlimited)") : std::to_string(p.max_hits_per_pair),
                         p.energy ? fmt::format("energy below {} kcal/mol at {} C", p.energy_threshold, p.temperature)
                                  : std::string("no energy"));
    }
    case StageKind::bpmax: {
      const auto& p = job.bpmax;
      return fmt::format("query_window {}, target_window {}, pairs {}, traceback {}, report_threshold {}",
                         window(p.query_window), window(p.target_window), weights(p.pairs),
                         traceback_name(p.traceback), p.report_threshold);
    }
  }
  return "";
}

std::string devices(const Resources& r) {
  switch (r.devices) {
    case DeviceMode::automatic: return "auto (all visible GPUs, else the CPU)";
    case DeviceMode::cpu: return "cpu";
    case DeviceMode::gpus: return fmt::format("GPUs [{}]", fmt::join(r.gpu_ids, ", "));
  }
  return "";
}

std::string auto_or(int v) { return v == 0 ? std::string("auto") : std::to_string(v); }

}  // namespace

std::string describe_job(const Job& job) {
  std::string out;
  out += fmt::format("{:<11} {}\n", "manifest", job.manifest_path);
  if (!job.manifest_sha256.empty()) out += fmt::format("{:<11} {}\n", "sha256", job.manifest_sha256);
  out += fmt::format("{:<11} {}\n", "job", job.name);
  out += fmt::format("{:<11} {}\n", "output", job.output);
  out += sets("queries", job.queries);
  out += sets("targets", job.targets);
  out += "stages      (in run order)\n";
  for (std::size_t i = 0; i < job.stage_order.size(); ++i)
    out += fmt::format("  {}. {:<9} {}\n", i + 1, stage_name(job.stage_order[i]), stage_line(job, job.stage_order[i]));
  out += fmt::format("{:<11} devices {}, cpu_threads {}, gpu_memory_fraction {}, max_unit_memory {}\n", "resources",
                     devices(job.resources), auto_or(job.resources.cpu_threads), job.resources.gpu_memory_fraction,
                     format_byte_size(job.resources.max_unit_memory));
  out += fmt::format("{:<11} shards {}, target_shard_minutes {}\n", "sharding", auto_or(job.sharding.shards),
                     job.sharding.target_shard_minutes);
  out += fmt::format("{:<11} every {} ({} s)\n", "checkpoint", format_duration(job.checkpoint.every_seconds),
                     job.checkpoint.every_seconds);
  if (job.cluster.present) {
    const auto& c = job.cluster;
    out += fmt::format("{:<11} {}, partition {}, gpus_per_task {}, time_limit {}, max_concurrent {}, extra_sbatch [{}]\n",
                       "cluster", c.scheduler, c.partition.empty() ? std::string("(default)") : c.partition,
                       c.gpus_per_task, c.time_limit, c.max_concurrent == 0 ? std::string("unlimited") : std::to_string(c.max_concurrent),
                       fmt::join(c.extra_sbatch, " "));
  } else {
    out += fmt::format("{:<11} (none: `screen submit` needs a cluster section)\n", "cluster");
  }
  return out;
}

}  // namespace screen::manifest
