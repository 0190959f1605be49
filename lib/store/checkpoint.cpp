#include "store/checkpoint.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <new>

#include "common/error.hpp"
#include "common/sha256.hpp"
#include "store/durable.hpp"
#include "store/h5.hpp"
#include "store/part_file.hpp"

namespace screen::store {

namespace {

constexpr const char* kFormat = "screen checkpoint";

// What differs between a segment's info and the expected one ("" when it fits).
std::string mismatch(const CheckpointInfo& got, const CheckpointInfo& want) {
  if (got.shard_id != want.shard_id || got.unit_begin != want.unit_begin || got.unit_end != want.unit_end)
    return fmt::format("it is of shard {} units [{}, {}), expected shard {} units [{}, {})", got.shard_id,
                       got.unit_begin, got.unit_end, want.shard_id, want.unit_begin, want.unit_end);
  if (got.sequence != want.sequence || got.from != want.from)
    return fmt::format("segment {} from unit {}, expected segment {} from unit {}", got.sequence, got.from,
                       want.sequence, want.from);
  if (got.to <= got.from || got.to > want.unit_end)
    return fmt::format("its units [{}, {}) lie outside the shard", got.from, got.to);
  if (got.manifest_sha256 != want.manifest_sha256) return "it was written for another manifest";
  if (got.input_sha256 != want.input_sha256) return "it was written for other inputs";
  if (got.plan_sha256 != want.plan_sha256) return "it was written for another plan";
  if (got.stages != want.stages) return "it holds other stages";
  return "";
}

}  // namespace

std::string checkpoint_checksum(const CheckpointInfo& info, const StageRows& rows) {
  Sha256 h;
  hash_str(h, "screen-checkpoint-1");
  hash_i64(h, info.shard_id);
  hash_u64(h, info.unit_begin);
  hash_u64(h, info.unit_end);
  hash_u64(h, info.sequence);
  hash_u64(h, info.from);
  hash_u64(h, info.to);
  hash_str(h, info.manifest_sha256);
  hash_u64(h, info.input_sha256.size());
  for (const auto& s : info.input_sha256) hash_str(h, s);
  hash_str(h, info.plan_sha256);
  const auto names = stage_names(info.stages);
  hash_u64(h, names.size());
  for (const auto& s : names) hash_str(h, s);
  const auto tables = table_digests(info.stages, rows);
  hash_u64(h, tables.size());
  for (const auto& t : tables) {
    hash_str(h, t.path);
    hash_u64(h, t.rows);
    hash_str(h, t.sha256);
  }
  return h.hex_digest();
}

void write_checkpoint(const std::string& path, const CheckpointInfo& given, const StageRows& rows) {
  CheckpointInfo info = given;
  info.stages = canonical_stages(info.stages);
  const std::string temp = temporary_name(path);
  try {
    h5::File f = h5::File::create(temp);
    f.set_string("format", kFormat);
    f.set_int("checkpoint_version", kCheckpointVersion);
    f.set_int("shard_id", info.shard_id);
    f.set_uint("unit_begin", info.unit_begin);
    f.set_uint("unit_end", info.unit_end);
    f.set_uint("sequence", info.sequence);
    f.set_uint("from", info.from);
    f.set_uint("to", info.to);
    f.set_string("manifest_sha256", info.manifest_sha256);
    f.set_strings("input_sha256", info.input_sha256);
    f.set_string("plan_sha256", info.plan_sha256);
    f.set_strings("stages", stage_names(info.stages));
    write_stage_tables(f, info.stages, rows);
    f.set_string("checksum", checkpoint_checksum(info, rows));
    f.flush();
    f.close();
    commit_file(temp, path);
  } catch (...) {
    std::remove(temp.c_str());
    throw;
  }
}

bool read_checkpoint(const std::string& path, const CheckpointInfo& expected, CheckpointSegment& out,
                     std::string& reason) {
  try {
    const h5::File f = h5::File::open(path);
    const std::string format = f.has_attribute("format") ? f.get_string("format") : "";
    if (format != kFormat) {
      reason = fmt::format("{}: not a screen checkpoint (format \"{}\")", path, format);
      return false;
    }
    if (f.get_int("checkpoint_version") != kCheckpointVersion) {
      reason = fmt::format("{}: checkpoint version {}, this screen reads version {}", path,
                           f.get_int("checkpoint_version"), kCheckpointVersion);
      return false;
    }
    CheckpointSegment s;
    s.info.shard_id = f.get_int("shard_id");
    s.info.unit_begin = f.get_uint("unit_begin");
    s.info.unit_end = f.get_uint("unit_end");
    s.info.sequence = f.get_uint("sequence");
    s.info.from = f.get_uint("from");
    s.info.to = f.get_uint("to");
    s.info.manifest_sha256 = f.get_string("manifest_sha256");
    s.info.input_sha256 = f.get_strings("input_sha256");
    s.info.plan_sha256 = f.get_string("plan_sha256");
    s.info.stages = stages_from_names(f.get_strings("stages"), path);
    CheckpointInfo want = expected;
    want.stages = canonical_stages(want.stages);
    const std::string why = mismatch(s.info, want);
    if (!why.empty()) {
      reason = fmt::format("{}: {}", path, why);
      return false;
    }
    const std::string stored = f.has_attribute("checksum") ? f.get_string("checksum") : "";
    s.rows = read_stage_tables(f, s.info.stages);
    const std::string actual = checkpoint_checksum(s.info, s.rows);
    if (stored != actual) {
      reason = fmt::format("{}: content checksum mismatch (stored {}, content gives {})", path,
                           stored.empty() ? "none" : stored, actual);
      return false;
    }
    out = std::move(s);
    return true;
  } catch (const std::bad_alloc&) {
    reason = fmt::format("{}: unreadable (implausible sizes)", path);
  } catch (const std::exception& e) {
    reason = fmt::format("{}: unreadable: {}", path, e.what());
  }
  return false;
}

}  // namespace screen::store
