#include "engine/shard_runner.hpp"

#include <chrono>
#include <filesystem>
#include <memory>
#include <tuple>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/work_profile.hpp"
#include "engine/batching.hpp"
#include "engine/folder.hpp"
#include "store/checkpoint.hpp"
#include "store/part_file.hpp"

namespace screen::engine {

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

void write_rows(store::PartWriter& w, const store::StageRows& rows) {
  if (!rows.nussinov_queries.empty()) w.append_nussinov(store::Side::query, rows.nussinov_queries);
  if (!rows.nussinov_targets.empty()) w.append_nussinov(store::Side::target, rows.nussinov_targets);
  if (!rows.miranda_hits.empty()) w.append(rows.miranda_hits);
  if (!rows.miranda_pairs.empty()) w.append(rows.miranda_pairs);
  if (!rows.bpmax_scores.empty()) w.append(rows.bpmax_scores);
  if (!rows.bpmax_structures.empty()) w.append(rows.bpmax_structures);
}

template <class Row>
void move_append(std::vector<Row>& to, std::vector<Row>& from) {
  to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  from.clear();
}

void move_rows(store::StageRows& to, store::StageRows& from) {
  move_append(to.nussinov_queries, from.nussinov_queries);
  move_append(to.nussinov_targets, from.nussinov_targets);
  move_append(to.miranda_hits, from.miranda_hits);
  move_append(to.miranda_pairs, from.miranda_pairs);
  move_append(to.bpmax_scores, from.bpmax_scores);
  move_append(to.bpmax_structures, from.bpmax_structures);
}

// The fields a part (store::PartInfo) and a checkpoint (store::CheckpointInfo) of the shard share.
template <class Info>
Info shard_info(const ShardContext& ctx, const plan::Shard& s) {
  Info info;
  info.shard_id = s.id;
  info.unit_begin = s.unit_begin;
  info.unit_end = s.unit_end;
  info.manifest_sha256 = ctx.manifest_sha256;
  info.input_sha256 = ctx.input_sha256;
  info.stages = store::canonical_stages(ctx.stages);
  return info;
}

store::CheckpointInfo checkpoint_info(const ShardContext& ctx, const plan::Shard& s) {
  auto c = shard_info<store::CheckpointInfo>(ctx, s);
  c.plan_sha256 = ctx.plan->hash;
  return c;
}

// Appends the rows of the verified prefix of the shard's checkpoint chain to the part; removes the
// segments after it. Returns the first unit not covered and the next sequence number.
std::pair<std::uint64_t, std::uint64_t> resume_from_checkpoints(const ShardContext& ctx, const plan::Shard& s,
                                                                store::PartWriter& writer) {
  std::uint64_t next = s.unit_begin, sequence = 0;
  bool broken = false;
  for (const auto& [seq, path] : list_checkpoints(ctx.output, s.id)) {
    std::error_code ec;
    if (!broken && next < s.unit_end) {
      store::CheckpointInfo want = checkpoint_info(ctx, s);
      want.sequence = sequence;
      want.from = next;
      store::CheckpointSegment seg;
      std::string reason;
      if (seq == sequence && store::read_checkpoint(path, want, seg, reason)) {
        write_rows(writer, seg.rows);
        next = seg.info.to;
        ++sequence;
        continue;
      }
      if (seq != sequence) reason = fmt::format("{}: segment {} where segment {} was expected", path, seq, sequence);
      spdlog::warn("shard {}: checkpoint not used ({}); recomputing from unit {}", s.id, reason, next);
      broken = true;
    }
    std::filesystem::remove(path, ec);
  }
  return {next, sequence};
}

// The part's rows: the checkpoint chain's, then the rest computed in batches (checkpoints on the way).
void compute_shard(const ShardContext& ctx, const plan::Shard& s, Device& device, const store::PartInfo& info,
                   std::unique_ptr<store::PartWriter>& writer, const std::function<bool()>& should_stop,
                   const std::function<void(std::uint64_t)>& on_units, ShardResult& result) {
  const plan::Plan& p = *ctx.plan;
  std::unique_lock<std::mutex> io(*ctx.store_mutex);
  writer = std::make_unique<store::PartWriter>(ctx.output + "/" + part_name(s.id), info);
  std::uint64_t i = 0, sequence = 0;  // (not a structured binding: the lambda below captures them)
  std::tie(i, sequence) = resume_from_checkpoints(ctx, s, *writer);
  io.unlock();
  result.units_resumed = i - s.unit_begin;
  if (result.units_resumed > 0) {
    spdlog::info("shard {}: resuming at unit {} from {} checkpoint segment{} ({} of {} units kept)", s.id, i, sequence,
                 sequence == 1 ? "" : "s", result.units_resumed, s.units());
    on_units(result.units_resumed);
  }

  // Rows since the last checkpoint, and where that checkpoint ended.
  store::StageRows pending;
  std::uint64_t pending_from = i;
  auto last_checkpoint = Clock::now();
  auto save_checkpoint = [&](std::uint64_t to) {
    if (to == pending_from) return;
    const auto t0 = Clock::now();
    store::CheckpointInfo c = checkpoint_info(ctx, s);
    c.sequence = sequence;
    c.from = pending_from;
    c.to = to;
    {
      std::lock_guard<std::mutex> hold(*ctx.store_mutex);
      store::write_checkpoint(ctx.output + "/" + checkpoint_name(s.id, sequence), c, pending);
    }
    pending = store::StageRows{};
    pending_from = to;
    ++sequence;
    ++result.checkpoints;
    last_checkpoint = Clock::now();
    if (ctx.profile) ctx.profile->add_write(device.name(), p.units[to - 1].stage, seconds(t0, last_checkpoint));
  };

  const double every = static_cast<double>(ctx.checkpoint_every);
  // A batch takes at most half the checkpoint interval, so that checkpoints land near it.
  const double batch_cap = every > 0 ? every / 2 : 0.0;
  while (i < s.unit_end) {
    const plan::WorkUnit& first = p.units[i];
    const std::size_t e = batch_end(p.units, i, s.unit_end, device.batch_limits(first.stage), batch_cap);
    store::StageRows rows;
    const work_profile::Counters before = work_profile::this_thread();
    const auto t0 = Clock::now();
    device.run({first.stage, &p.units[i], e - i}, *ctx.inputs, *ctx.params, rows);
    const auto t1 = Clock::now();
    {
      std::lock_guard<std::mutex> hold(*ctx.store_mutex);
      write_rows(*writer, rows);
    }
    if (ctx.profile) {
      const work_profile::Counters& after = work_profile::this_thread();
      ctx.profile->add_batch(device.name(), first.stage, e - i, seconds(t0, t1), after.gpu_seconds - before.gpu_seconds,
                             after.traceback_seconds - before.traceback_seconds);
      ctx.profile->add_write(device.name(), first.stage, seconds(t1, Clock::now()));
    }
    move_rows(pending, rows);
    result.units_computed += e - i;
    on_units(e - i);
    i = e;
    if (should_stop()) {
      save_checkpoint(i);  // then the part is abandoned
      throw ShardStopped();
    }
    const double since = std::chrono::duration<double>(Clock::now() - last_checkpoint).count();
    if (i < s.unit_end && since >= every) save_checkpoint(i);
  }
}

}  // namespace

ShardResult run_shard(const ShardContext& ctx, const plan::Shard& s, Device& device,
                      const std::function<bool()>& should_stop,
                      const std::function<void(std::uint64_t)>& on_units) {
  const auto t0 = Clock::now();
  store::PartInfo info = shard_info<store::PartInfo>(ctx, s);

  ShardResult result;
  std::unique_ptr<store::PartWriter> writer;
  try {
    compute_shard(ctx, s, device, info, writer, should_stop, on_units, result);
  } catch (...) {
    std::lock_guard<std::mutex> hold(*ctx.store_mutex);
    writer.reset();  // removes the temporary part
    throw;
  }
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  const auto t_commit = Clock::now();
  std::lock_guard<std::mutex> hold(*ctx.store_mutex);
  writer->set_timing(result.wall_seconds, device.name(), ctx.host);
  result.checksum = writer->commit();
  if (ctx.profile) ctx.profile->add_write(device.name(), ctx.plan->units[s.unit_end - 1].stage, seconds(t_commit, Clock::now()));
  return result;
}

}  // namespace screen::engine
