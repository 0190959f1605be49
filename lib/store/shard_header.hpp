#pragma once
// Internal to lib/store: the root attributes and checksum fields that part files (part_file.cpp)
// and checkpoint segments (checkpoint.cpp) share. `Info` is PartInfo or CheckpointInfo: both name
// the shard (shard_id, unit_begin, unit_end), its sources (manifest_sha256, input_sha256) and stages.
#include <string>
#include <vector>

#include "common/sha256.hpp"
#include "store/h5.hpp"
#include "store/part_file.hpp"
#include "store/stage_rows.hpp"
#include "store/tables.hpp"

namespace screen::store::detail {

// The shard (shard_id, unit_begin, unit_end), its sources (manifest_sha256, input_sha256) and its
// stages, as root attributes.
template <class Info>
void write_shard_fields(h5::File& f, const Info& info) {
  f.set_int("shard_id", info.shard_id);
  f.set_uint("unit_begin", info.unit_begin);
  f.set_uint("unit_end", info.unit_end);
  f.set_string("manifest_sha256", info.manifest_sha256);
  f.set_strings("input_sha256", info.input_sha256);
  f.set_strings("stages", stage_names(info.stages));
}

// What write_shard_fields wrote; `path` names the file in errors.
template <class Info>
void read_shard_fields(const h5::File& f, const std::string& path, Info& info) {
  info.shard_id = f.get_int("shard_id");
  info.unit_begin = f.get_uint("unit_begin");
  info.unit_end = f.get_uint("unit_end");
  info.manifest_sha256 = f.get_string("manifest_sha256");
  info.input_sha256 = f.get_strings("input_sha256");
  info.stages = stages_from_names(f.get_strings("stages"), path);
}

// A list as its length, then each string.
inline void hash_strings(Sha256& h, const std::vector<std::string>& v) {
  hash_u64(h, v.size());
  for (const auto& s : v) hash_str(h, s);
}

template <class Info>
void hash_shard_range(Sha256& h, const Info& info) {
  hash_i64(h, info.shard_id);
  hash_u64(h, info.unit_begin);
  hash_u64(h, info.unit_end);
}

template <class Info>
void hash_sources(Sha256& h, const Info& info) {
  hash_str(h, info.manifest_sha256);
  hash_strings(h, info.input_sha256);
}

// The table count, then each table's place, row count and digest.
inline void hash_tables(Sha256& h, const std::vector<TableDigest>& tables) {
  hash_u64(h, tables.size());
  for (const auto& t : tables) {
    hash_str(h, t.path);
    hash_u64(h, t.rows);
    hash_str(h, t.sha256);
  }
}

}  // namespace screen::store::detail
