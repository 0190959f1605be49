#include "engine/shard_runner.hpp"

#include <chrono>
#include <future>
#include <optional>
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
                   const UnitsDone& on_units, ShardResult& result) {
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
    on_units(s.unit_begin, i, true);
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

  // A batch whose device part is done and whose host task (Device::start) may still run: one is in
  // flight while the device works on the next, so the device never waits for the host. Rows are
  // written, counted and checkpointed in batch order, when the batch completes.
  struct InFlight {
    std::uint64_t begin = 0, end = 0;
    plan::StageKind stage = plan::StageKind::nussinov;
    std::shared_ptr<store::StageRows> rows = std::make_shared<store::StageRows>();
    Device::HostTask host;     // the host task, until launched
    std::future<double> task;  // the launched host task's wall seconds
    // On a thread of its own; launched once the previous batch's task is done, so that one host task
    // at a time uses the host (a task may take every core).
    void launch() {
      if (!host) return;
      task = std::async(std::launch::async, [host = std::move(host), rows = rows] {
        const auto h0 = Clock::now();
        host(*rows);
        return seconds(h0, Clock::now());
      });
      host = nullptr;
    }
  };
  std::uint64_t written = i;  // units before this are in the part (and in `pending`)
  auto complete = [&](InFlight& b) {
    double overlapped = 0, waited = 0;
    const bool had_task = b.task.valid();
    if (had_task) {
      const auto w0 = Clock::now();
      overlapped = b.task.get();  // rethrows the task's error
      waited = seconds(w0, Clock::now());
    }
    const auto t1 = Clock::now();
    {
      std::lock_guard<std::mutex> hold(*ctx.store_mutex);
      write_rows(*writer, *b.rows);
    }
    if (ctx.profile) {
      if (had_task) ctx.profile->add_host_task(device.name(), b.stage, overlapped, waited);
      ctx.profile->add_write(device.name(), b.stage, seconds(t1, Clock::now()));
    }
    move_rows(pending, *b.rows);
    result.units_computed += b.end - b.begin;
    on_units(b.begin, b.end, false);
    written = b.end;
  };
  // Starts the batch at unit `from` on the device; its host task, if any, on a thread of its own.
  auto start = [&](std::uint64_t from) {
    InFlight b;
    b.begin = from;
    b.stage = p.units[from].stage;
    b.end = batch_end(p.units, from, s.unit_end, device.batch_limits(b.stage), batch_cap);
    const work_profile::Counters before = work_profile::this_thread();
    const auto t0 = Clock::now();
    b.host = device.start({b.stage, &p.units[from], b.end - from}, *ctx.inputs, *ctx.params, *b.rows);
    if (ctx.profile) {
      const work_profile::Counters& after = work_profile::this_thread();
      ctx.profile->add_batch(device.name(), b.stage, b.end - from, seconds(t0, Clock::now()),
                             after.gpu_seconds - before.gpu_seconds, after.traceback_seconds - before.traceback_seconds);
    }
    return b;
  };

  std::optional<InFlight> in_flight;
  std::uint64_t next = i;  // the first unit not started
  while (next < s.unit_end || in_flight) {
    std::optional<InFlight> started;
    if (next < s.unit_end && !should_stop()) {
      started = start(next);
      next = started->end;
    }
    if (in_flight) {
      complete(*in_flight);
      in_flight.reset();
    }
    // A batch without a host task is complete now (as if there were no pipeline).
    if (started && !started->host) {
      complete(*started);
    } else if (started) {
      started->launch();
      in_flight = std::move(started);
    }
    if (should_stop()) {
      save_checkpoint(written);
      if (in_flight) {
        complete(*in_flight);
        save_checkpoint(written);
      }
      throw ShardStopped();  // the part is abandoned
    }
    const double since = std::chrono::duration<double>(Clock::now() - last_checkpoint).count();
    if (written < s.unit_end && since >= every) save_checkpoint(written);
  }
}

}  // namespace

ShardResult run_shard(const ShardContext& ctx, const plan::Shard& s, Device& device,
                      const std::function<bool()>& should_stop, const UnitsDone& on_units) {
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
