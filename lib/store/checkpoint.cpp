#include "store/checkpoint.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <new>

#include "common/error.hpp"
#include "common/sha256.hpp"
#include "store/durable.hpp"
#include "store/h5.hpp"
#include "store/part_file.hpp"
#include "store/shard_header.hpp"

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
  detail::hash_shard_range(h, info);
  hash_u64(h, info.sequence);
  hash_u64(h, info.from);
  hash_u64(h, info.to);
  detail::hash_sources(h, info);
  hash_str(h, info.plan_sha256);
  detail::hash_strings(h, stage_names(info.stages));
  detail::hash_tables(h, table_digests(info.stages, rows));
  return h.hex_digest();
}

void write_checkpoint(const std::string& path, const CheckpointInfo& given, const StageRows& rows) {
  CheckpointInfo info = given;
  info.stages = canonical_stages(info.stages);
  write_durably(path, [&](const std::string& temp) {
    h5::File f = h5::File::create(temp);
    f.set_string("format", kFormat);
    f.set_int("checkpoint_version", kCheckpointVersion);
    detail::write_shard_fields(f, info);
    f.set_uint("sequence", info.sequence);
    f.set_uint("from", info.from);
    f.set_uint("to", info.to);
    f.set_string("plan_sha256", info.plan_sha256);
    write_stage_tables(f, info.stages, rows);
    f.set_string("checksum", checkpoint_checksum(info, rows));
    f.flush();
    f.close();
  });
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
    detail::read_shard_fields(f, path, s.info);
    s.info.sequence = f.get_uint("sequence");
    s.info.from = f.get_uint("from");
    s.info.to = f.get_uint("to");
    s.info.plan_sha256 = f.get_string("plan_sha256");
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

bool read_checkpoint_span(const std::string& path, std::uint64_t& sequence, std::uint64_t& from, std::uint64_t& to) {
  try {
    const h5::File f = h5::File::open(path);
    if (!f.has_attribute("format") || f.get_string("format") != kFormat) return false;
    if (f.get_int("checkpoint_version") != kCheckpointVersion) return false;
    sequence = f.get_uint("sequence");
    from = f.get_uint("from");
    to = f.get_uint("to");
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace screen::store
