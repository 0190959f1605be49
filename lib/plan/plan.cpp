#include "plan/plan.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "common/sha256.hpp"
#include "plan/stage_params.hpp"
#include "stages/bpmax/cpu.hpp"

namespace screen::plan {

const char* device_kind_name(DeviceKind k) { return k == DeviceKind::gpu ? "gpu" : "cpu-core"; }

double throughput(StageKind stage, DeviceKind kind) {
  // Rough figures (operations per second); only the shards' balance and the ETAs depend on them.
  switch (stage) {
    case StageKind::nussinov: return kind == DeviceKind::gpu ? 2e10 : 1e9;
    case StageKind::miranda: return kind == DeviceKind::gpu ? 5e10 : 5e8;
    case StageKind::bpmax: return kind == DeviceKind::gpu ? 1e11 : 2e9;
  }
  return 1e9;
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
  const double us = u.ops / throughput(u.stage, DeviceKind::gpu) * 1e6;
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
                                 const std::vector<std::size_t>& target_lengths) {
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
          u.memory_bytes = 4ull * lengths[i] * lengths[i];
          units.push_back(finish(u));
        }
      }
      continue;
    }
    for (std::size_t q = 0; q < query_lengths.size(); ++q) {
      for (std::size_t t = 0; t < target_lengths.size(); ++t) {
        WorkUnit u;
        u.stage = stage;
        u.a = q;
        u.b = t;
        const std::size_t lq = query_lengths[q], lr = target_lengths[t];
        if (stage == StageKind::miranda) {
          u.ops = static_cast<double>(lq) * static_cast<double>(lr);
          u.memory_bytes = 12ull * (lq + 1) + lr;
        } else {
          u.ops = bpmax::term1_updates(static_cast<int>(lq), static_cast<int>(lr), sp.bpmax);
          u.memory_bytes = bpmax::cpu_table_bytes(static_cast<int>(lq), static_cast<int>(lr), sp.bpmax);
        }
        units.push_back(finish(u));
      }
    }
  }
  return units;
}

int shard_count(const manifest::Job& job, const std::vector<WorkUnit>& units, int requested) {
  if (requested < 0) throw UsageError("the shard count must be >= 1");
  long long k = requested > 0 ? requested : job.sharding.shards;
  if (k <= 0) {
    double seconds = 0;
    for (const auto& u : units) seconds += u.ops / throughput(u.stage, DeviceKind::gpu);
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
      s.gpu_seconds += u.ops / throughput(u.stage, DeviceKind::gpu);
      s.cpu_core_seconds += u.ops / throughput(u.stage, DeviceKind::cpu_core);
      s.memory_bytes = std::max(s.memory_bytes, u.memory_bytes);
    }
    out.push_back(s);
  }
  return out;
}

std::string plan_hash(const std::vector<WorkUnit>& units, const std::vector<Shard>& shards) {
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
  return h.hex_digest();
}

Plan make_plan(const manifest::Job& job, const std::vector<std::size_t>& query_lengths,
               const std::vector<std::size_t>& target_lengths, int requested_shards) {
  Plan p;
  p.units = make_units(job, query_lengths, target_lengths);
  p.shards = make_shards(p.units, shard_count(job, p.units, requested_shards));
  p.hash = plan_hash(p.units, p.shards);
  for (const auto& s : p.shards) {
    p.gpu_seconds += s.gpu_seconds;
    p.cpu_core_seconds += s.cpu_core_seconds;
  }
  return p;
}

}  // namespace screen::plan
