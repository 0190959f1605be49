#include "engine/shard_assembly.hpp"

#include <chrono>
#include <filesystem>
#include <iterator>
#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/error.hpp"
#include "engine/folder.hpp"
#include "store/checkpoint.hpp"

namespace screen::engine {

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

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
  info.manifest_sha256 = ctx.results_sha256;
  info.input_sha256 = ctx.input_sha256;
  info.stages = store::canonical_stages(ctx.stages);
  return info;
}

store::CheckpointInfo checkpoint_info(const ShardContext& ctx, const plan::Shard& s) {
  auto c = shard_info<store::CheckpointInfo>(ctx, s);
  c.plan_sha256 = ctx.plan->hash;
  return c;
}

}  // namespace

ShardAssembly::ShardAssembly(const ShardContext& ctx, const plan::Shard& s) : ctx_(ctx), shard_(s) {
  opened_ = last_checkpoint_ = now_seconds();
  std::lock_guard<std::mutex> io(*ctx_.store_mutex);
  writer_ = std::make_unique<store::PartWriter>(ctx_.output + "/" + part_name(s.id), shard_info<store::PartInfo>(ctx_, s));
  // The verified prefix of the checkpoint chain goes to the part; the segments after it are removed.
  std::uint64_t next = s.unit_begin, sequence = 0;
  bool broken = false;
  for (const auto& [seq, path] : list_checkpoints(ctx_.output, s.id)) {
    std::error_code ec;
    if (!broken && next < s.unit_end) {
      store::CheckpointInfo want = checkpoint_info(ctx_, s);
      want.sequence = sequence;
      want.from = next;
      store::CheckpointSegment seg;
      std::string reason;
      if (seq == sequence && store::read_checkpoint(path, want, seg, reason)) {
        write_rows(*writer_, seg.rows);
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
  resumed_to_ = written_ = pending_from_ = next;
  resumed_segments_ = sequence_ = sequence;
  result_.units_resumed = next - s.unit_begin;
  if (result_.units_resumed > 0)
    spdlog::info("shard {}: resuming at unit {} from {} checkpoint segment{} ({} of {} units kept)", s.id, next,
                 sequence, sequence == 1 ? "" : "s", result_.units_resumed, s.units());
}

ShardAssembly::~ShardAssembly() { abandon(); }

void ShardAssembly::abandon() {
  std::lock_guard<std::mutex> hold(lock_);
  if (!writer_) return;
  std::lock_guard<std::mutex> io(*ctx_.store_mutex);
  writer_.reset();  // an uncommitted writer removes its temporary file
}

void ShardAssembly::add_device(const std::string& device) {
  for (const auto& d : devices_)
    if (d == device) return;
  devices_.push_back(device);
}

ShardAssembly::Delivery ShardAssembly::deliver(std::uint64_t begin, std::uint64_t end, store::StageRows rows,
                                               const std::string& writer, const std::string& device) {
  std::lock_guard<std::mutex> hold(lock_);
  if (end > shard_.unit_end || begin < shard_.unit_begin || begin >= end)
    throw Error(ExitCode::internal, fmt::format("shard {}: units [{}, {}) outside the shard", shard_.id, begin, end));
  // The same batch twice (a helper's batch taken again): the first delivery counts. A committed part
  // (writer_ gone) has every unit already.
  if (!writer_ || begin < written_ || waiting_.count(begin)) return {};
  add_device(device);
  result_.units_computed += end - begin;
  waiting_[begin] = Waiting{end, std::move(rows)};
  write_ready(writer);
  return {true, written_ == shard_.unit_end && waiting_.empty()};
}

void ShardAssembly::write_ready(const std::string& writer) {
  const double t0 = now_seconds();
  bool wrote = false;
  plan::StageKind stage = plan::StageKind::nussinov;
  for (auto it = waiting_.find(written_); it != waiting_.end(); it = waiting_.find(written_)) {
    {
      std::lock_guard<std::mutex> io(*ctx_.store_mutex);
      write_rows(*writer_, it->second.rows);
    }
    move_rows(pending_, it->second.rows);
    stage = ctx_.plan->units[written_].stage;
    written_ = it->second.end;
    waiting_.erase(it);
    wrote = true;
  }
  if (!wrote) return;
  if (ctx_.profile && !writer.empty()) ctx_.profile->add_write(writer, stage, now_seconds() - t0);
  if (written_ < shard_.unit_end && now_seconds() - last_checkpoint_ >= static_cast<double>(ctx_.checkpoint_every))
    save_checkpoint_locked(writer);
}

void ShardAssembly::save_checkpoint(const std::string& writer) {
  std::lock_guard<std::mutex> hold(lock_);
  if (writer_) save_checkpoint_locked(writer);
}

void ShardAssembly::save_checkpoint_locked(const std::string& writer) {
  if (written_ == pending_from_) return;
  const double t0 = now_seconds();
  store::CheckpointInfo c = checkpoint_info(ctx_, shard_);
  c.sequence = sequence_;
  c.from = pending_from_;
  c.to = written_;
  {
    std::lock_guard<std::mutex> io(*ctx_.store_mutex);
    store::write_checkpoint(ctx_.output + "/" + checkpoint_name(shard_.id, sequence_), c, pending_);
  }
  pending_ = store::StageRows{};
  pending_from_ = written_;
  ++sequence_;
  ++result_.checkpoints;
  last_checkpoint_ = now_seconds();
  if (ctx_.profile && !writer.empty())
    ctx_.profile->add_write(writer, ctx_.plan->units[written_ - 1].stage, last_checkpoint_ - t0);
}

bool ShardAssembly::committed() {
  std::lock_guard<std::mutex> hold(lock_);
  return committed_;
}

ShardResult ShardAssembly::commit(const std::string& device) {
  std::lock_guard<std::mutex> hold(lock_);
  if (!writer_ || written_ != shard_.unit_end)
    throw Error(ExitCode::internal, fmt::format("shard {}: commit of an incomplete part", shard_.id));
  result_.wall_seconds = now_seconds() - opened_;
  for (const auto& d : devices_) result_.devices += (result_.devices.empty() ? "" : "; ") + d;
  if (result_.devices.empty()) result_.devices = "checkpoints";  // every unit came from the chain
  const double t0 = now_seconds();
  std::lock_guard<std::mutex> io(*ctx_.store_mutex);
  writer_->set_timing(result_.wall_seconds, result_.devices, ctx_.host);
  result_.checksum = writer_->commit();
  writer_.reset();
  committed_ = true;
  pending_ = store::StageRows{};
  if (ctx_.profile && !device.empty())
    ctx_.profile->add_write(device, ctx_.plan->units[shard_.unit_end - 1].stage, now_seconds() - t0);
  return result_;
}

}  // namespace screen::engine
