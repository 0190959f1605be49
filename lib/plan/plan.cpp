#include "plan/plan.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/sha256.hpp"
#include "manifest/byte_size.hpp"
#include "plan/stage_params.hpp"
#include "stages/bpmax/cpu.hpp"
#include "stages/bpmax/cuda.hpp"
#include "stages/nussinov/cpu.hpp"

namespace screen::plan {

const char* device_kind_name(DeviceKind k) { return k == DeviceKind::gpu ? "gpu" : "cpu-core"; }

// Two tables. The cost model (cost_throughput, cost_per_unit) defines the plan: a unit's cost is
// its GPU microseconds under these constants, which are frozen (they are the calibration of the
// first GPU builds) so that plans, their hashes and the automatic shard count never change between
// machines or releases; a folder started by an earlier build resumes. The seconds table
// (throughput, per_unit_seconds) only estimates time (screen plan's estimate, the scheduler's
// choices, ETAs) and follows the measurements; changing it changes no plan.
//
// Cost model (frozen): GPU updates/s and seconds per unit.
double cost_throughput(StageKind stage) {
  switch (stage) {
    case StageKind::nussinov: return 1e13;
    case StageKind::miranda: return 6.8e10;
    case StageKind::bpmax: return 1.5e12;
  }
  return 1e9;
}

double cost_per_unit(StageKind stage) {
  switch (stage) {
    case StageKind::nussinov: return 2e-5;
    case StageKind::miranda: return 5e-6;
    case StageKind::bpmax: return 0;
  }
  return 0;
}

// Seconds table ("GPU machine" = one H100 80GB HBM3 and 16 CPU cores; docs/performance.md and the
// README's performance section give the runs):
//   nussinov cpu-core  1.6e10 updates/s: the tiled CPU path on one thread, n = 4,000 and 6,000
//                      (1.6e10 and 1.7e10 updates/s); 1.2e-4 s per unit: 1,527 hairpins (127,588 nt)
//                      with traceback in 0.012 s on 16 threads = 0.19 core-s.
//   nussinov gpu       2.3e13 updates/s end to end with structures: the whole flagship set's Nussinov
//                      stage (7.54e15 updates, both longest records included) in 311.7 s busy with
//                      Session 22's panel streams is 2.42e13 (331.3 s busy, 2.28e13, just before them);
//                      kept a little lower for slices without the long records (their short folds carry
//                      more fixed cost); 2e-5 s per unit. (1.8e13 from Session 15 to 21: 381.5 s busy at
//                      85ba64e, 2.0e13; 1e13 before: the Session 7 kernels.)
//   miranda  cpu-core  2.5e9 cells/s: the AVX2 SIMD scan, 2.59 GCUPS on one core; 1e-5 s per pair.
//   miranda  gpu       6.8e10 cells/s: the GPU scan end to end with the exact CPU post-processing
//                      (68 GCUPS for 1,921 microRNAs x the SARS-CoV-2 genome); 5e-6 s per pair.
//   bpmax    cpu-core  5.5e9 updates/s: the fast CPU path, 23 x 20,000 with W2 = 128 on 16 threads
//                      (88 GOPS, a638ef9, on 16 cores of the two-H100 machine's Xeon; 4.2e9 before
//                      3eaea84 on the single-H100 machine's cores).
//   bpmax    gpu       12e12 updates/s end to end, every window counted (the GPU skips the windows that
//                      cannot hold the site, so the rate depends on the sequences): `screen bench bpmax
//                      --targets` over the flagship set's first 1,500 records gave 12.1e12-12.4e12 at
//                      21ac6d1, the first 4,000 14.2e12 at 210f989 (H200s; scores and sites); the lower
//                      is kept. `traceback: top` adds no GPU time: the tracebacks run beside it.
//                      (9.3e12 from Session 20 to 28: the 4,000 records computing every window, 34cd9aa;
//                      with it the whole job estimated 865 s and ran in 853.7 s at eada7e3, 691.4 s
//                      with the pruning at 21ac6d1. 8e12 from Session 15 to 19, the whole set at a7490fb;
//                      5.2e12 before: the Session 8 kernels.)
double throughput(StageKind stage, DeviceKind kind) {
  const bool gpu = kind == DeviceKind::gpu;
  switch (stage) {
    case StageKind::nussinov: return gpu ? 2.3e13 : 1.6e10;
    case StageKind::miranda: return gpu ? 6.8e10 : 2.5e9;
    case StageKind::bpmax: return gpu ? 12e12 : 5.5e9;
  }
  return 1e9;
}

double per_unit_seconds(StageKind stage, DeviceKind kind) {
  const bool gpu = kind == DeviceKind::gpu;
  switch (stage) {
    case StageKind::nussinov: return gpu ? 2e-5 : 1.2e-4;
    case StageKind::miranda: return gpu ? 5e-6 : 1e-5;
    case StageKind::bpmax: return 0;
  }
  return 0;
}

double unit_seconds(const WorkUnit& u, DeviceKind kind) {
  return u.ops / throughput(u.stage, kind) + per_unit_seconds(u.stage, kind);
}

namespace {

double nussinov_ops(std::size_t n, int max_span) {
  const double dn = static_cast<double>(n);
  if (max_span > 0 && static_cast<std::size_t>(max_span) < n) {
    const double s = max_span;
    return dn * s * s / 2;
  }
  return dn * dn * dn / 6;
}

WorkUnit finish(WorkUnit u) {
  const double us = (u.ops / cost_throughput(u.stage) + cost_per_unit(u.stage)) * 1e6;
  u.cost = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(std::min(us, 1e15))));
  return u;
}

void hash_u64(Sha256& h, std::uint64_t v) {
  unsigned char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(v >> (8 * i));
  h.update(b, 8);
}

}  // namespace

std::vector<WorkUnit> make_units(const manifest::Job& job, const std::vector<std::size_t>& query_lengths,
                                 const std::vector<std::size_t>& target_lengths,
                                 const std::vector<std::uint8_t>& target_both_strands) {
  if (!target_both_strands.empty() && target_both_strands.size() != target_lengths.size())
    throw Error(ExitCode::internal, "make_units: strand flags for a different number of targets");
  const StageParams sp = stage_params(job);
  std::vector<WorkUnit> units;
  for (StageKind stage : job.stage_order) {
    if (stage == StageKind::nussinov) {
      for (std::uint8_t side = 0; side < 2; ++side) {
        const auto& lengths = side == 0 ? query_lengths : target_lengths;
        for (std::size_t i = 0; i < lengths.size(); ++i) {
          WorkUnit u;
          u.stage = stage;
          u.side = side;
          u.a = i;
          u.ops = nussinov_ops(lengths[i], job.nussinov.max_span);
          // The CPU path's table and the GPU path's (nussinov/cpu.hpp; the GPU path itself refuses
          // a fold over the memory it finds free, so its estimate must not fall short).
          u.memory_bytes = nussinov::cpu_table_bytes(static_cast<int>(lengths[i]), sp.nussinov);
          u.gpu_memory_bytes = nussinov::gpu_fold_bytes(static_cast<int>(lengths[i]), sp.nussinov);
          units.push_back(finish(u));
        }
      }
      continue;
    }
    // A pair unit; the reverse strand costs what the forward one does.
    const auto pair_unit = [&](std::size_t q, std::size_t t, std::uint8_t strand) {
      WorkUnit u;
      u.stage = stage;
      u.side = strand;
      u.a = q;
      u.b = t;
      const std::size_t lq = query_lengths[q], lr = target_lengths[t];
      if (stage == StageKind::miranda) {
        u.ops = static_cast<double>(lq) * static_cast<double>(lr);
        u.memory_bytes = 12ull * (lq + 1) + lr;
        u.gpu_memory_bytes = u.memory_bytes;
      } else {
        u.ops = bpmax::term1_updates(static_cast<int>(lq), static_cast<int>(lr), sp.bpmax);
        u.memory_bytes = bpmax::cpu_table_bytes(static_cast<int>(lq), static_cast<int>(lr), sp.bpmax);
        const std::size_t gpu_bytes = bpmax::gpu_table_bytes(static_cast<int>(lq), static_cast<int>(lr), sp.bpmax);
        u.gpu_memory_bytes = gpu_bytes > 0 ? gpu_bytes : u.memory_bytes;  // 0: no GPU path in this build
      }
      return finish(u);
    };
    for (std::size_t q = 0; q < query_lengths.size(); ++q) {
      for (std::size_t t = 0; t < target_lengths.size(); ++t) units.push_back(pair_unit(q, t, 0));
      if (target_both_strands.empty()) continue;
      for (std::size_t t = 0; t < target_lengths.size(); ++t)
        if (target_both_strands[t] != 0) units.push_back(pair_unit(q, t, 1));
    }
  }
  return units;
}

int shard_count(const manifest::Job& job, const std::vector<WorkUnit>& units, int requested) {
  if (requested < 0) throw UsageError("the shard count must be >= 1");
  long long k = requested > 0 ? requested : job.sharding.shards;
  if (k <= 0) {
    double seconds = 0;  // by the cost model, so that the count never changes with the seconds table
    for (const auto& u : units) seconds += static_cast<double>(u.cost) * 1e-6;
    k = static_cast<long long>(std::ceil(seconds / (job.sharding.target_shard_minutes * 60.0)));
  }
  k = std::min<long long>(k, static_cast<long long>(units.size()));
  return static_cast<int>(std::max<long long>(k, 1));
}

std::vector<Shard> make_shards(const std::vector<WorkUnit>& units, int shards) {
  if (shards < 1) throw UsageError("the shard count must be >= 1");
  std::vector<Shard> out;
  const std::size_t n = units.size();
  if (n == 0) return out;
  const std::size_t k_count = std::min<std::size_t>(static_cast<std::size_t>(shards), n);
  std::vector<std::uint64_t> prefix(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + units[i].cost;
  const std::uint64_t total = prefix[n];
  const std::uint64_t kk = k_count;
  std::vector<std::size_t> bounds{0};
  for (std::size_t k = 1; k < k_count; ++k) {
    // Target running cost k * total / K, computed without overflow.
    const std::uint64_t target = total / kk * k + (total % kk) * k / kk;
    std::size_t i = static_cast<std::size_t>(std::lower_bound(prefix.begin(), prefix.end(), target) - prefix.begin());
    if (i > 0 && target - prefix[i - 1] <= prefix[i] - target) --i;  // the nearer of the two cuts
    i = std::max(i, bounds.back() + 1);
    i = std::min(i, n - (k_count - k));
    bounds.push_back(i);
  }
  bounds.push_back(n);
  for (std::size_t k = 0; k < k_count; ++k) {
    Shard s;
    s.id = static_cast<std::int64_t>(k);
    s.unit_begin = bounds[k];
    s.unit_end = bounds[k + 1];
    for (std::size_t i = bounds[k]; i < bounds[k + 1]; ++i) {
      const WorkUnit& u = units[i];
      s.cost += u.cost;
      s.gpu_seconds += unit_seconds(u, DeviceKind::gpu);
      s.cpu_core_seconds += unit_seconds(u, DeviceKind::cpu_core);
      s.memory_bytes = std::max(s.memory_bytes, u.memory_bytes);
    }
    out.push_back(s);
  }
  return out;
}

std::vector<SkippedUnit> take_oversized(std::vector<WorkUnit>& units, std::uint64_t max_bytes) {
  std::vector<SkippedUnit> skipped;
  std::vector<WorkUnit> kept;
  kept.reserve(units.size());
  for (const auto& u : units) {
    if (u.memory_bytes <= max_bytes) {
      kept.push_back(u);
      continue;
    }
    const char* what = u.stage == StageKind::nussinov ? "the Nussinov table needs"
                       : u.stage == StageKind::miranda ? "the miRanda scan needs"
                                                       : "the BPMax tables need";
    std::string reason = fmt::format("{} {} on the CPU path", what, manifest::format_byte_size(u.memory_bytes));
    if (u.gpu_memory_bytes != u.memory_bytes)
      reason += fmt::format(" ({} on the GPU path)", manifest::format_byte_size(u.gpu_memory_bytes));
    reason += fmt::format(", more than resources.max_unit_memory ({})", manifest::format_byte_size(max_bytes));
    skipped.push_back({u, std::move(reason)});
  }
  units = std::move(kept);
  return skipped;
}

std::string plan_hash(const std::vector<WorkUnit>& units, const std::vector<Shard>& shards,
                      const std::vector<SkippedUnit>& skipped) {
  Sha256 h;
  h.update(std::string_view("screen-plan-1"));
  hash_u64(h, units.size());
  for (const auto& u : units) {
    hash_u64(h, static_cast<std::uint64_t>(u.stage));
    hash_u64(h, u.side);
    hash_u64(h, u.a);
    hash_u64(h, u.b);
    hash_u64(h, u.cost);
  }
  hash_u64(h, shards.size());
  for (const auto& s : shards) {
    hash_u64(h, static_cast<std::uint64_t>(s.id));
    hash_u64(h, s.unit_begin);
    hash_u64(h, s.unit_end);
  }
  if (!skipped.empty()) {
    h.update(std::string_view("skipped"));
    hash_u64(h, skipped.size());
    for (const auto& k : skipped) {
      hash_u64(h, static_cast<std::uint64_t>(k.unit.stage));
      hash_u64(h, k.unit.side);
      hash_u64(h, k.unit.a);
      hash_u64(h, k.unit.b);
    }
  }
  return h.hex_digest();
}

Plan make_plan(const manifest::Job& job, const std::vector<std::size_t>& query_lengths,
               const std::vector<std::size_t>& target_lengths, int requested_shards,
               const std::vector<std::uint8_t>& target_both_strands) {
  Plan p;
  p.units = make_units(job, query_lengths, target_lengths, target_both_strands);
  p.skipped = take_oversized(p.units, job.resources.max_unit_memory);
  p.shards = make_shards(p.units, shard_count(job, p.units, requested_shards));
  p.hash = plan_hash(p.units, p.shards, p.skipped);
  for (const auto& s : p.shards) {
    p.gpu_seconds += s.gpu_seconds;
    p.cpu_core_seconds += s.cpu_core_seconds;
  }
  return p;
}

}  // namespace screen::plan
