#include "store/part_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>

#include <cstdio>
#include <new>

#include "common/error.hpp"
#include "common/sha256.hpp"
#include "common/version.hpp"
#include "store/durable.hpp"
#include "store/shard_header.hpp"
#include "store/table_io.hpp"

namespace screen::store {

namespace {

constexpr const char* kFormat = "screen part";

std::string table_path(const char* group, const char* table) { return fmt::format("{}/{}", group, table); }

// A table being written: its HDF5 columns and the running hash of its rows.
template <class Row>
struct OpenTable {
  TableWriter<Row> writer;
  Sha256 hash;
  bool present = false;

  void append(const std::vector<Row>& rows, const char* what, const std::string& file) {
    if (!present)
      throw Error(ExitCode::internal, fmt::format("{}: rows for {}, a table of a stage the part does not hold", file, what));
    writer.append(rows);
    for (const Row& r : rows) hash_row(hash, r);
  }
};

}  // namespace

std::string part_checksum(const PartInfo& info, const std::vector<TableDigest>& tables) {
  Sha256 h;
  hash_str(h, "screen-part-1");
  detail::hash_shard_range(h, info);
  detail::hash_sources(h, info);
  detail::hash_strings(h, stage_names(info.stages));
  hash_f64(h, info.wall_seconds);
  hash_str(h, info.device);
  hash_str(h, info.host);
  detail::hash_tables(h, tables);
  return h.hex_digest();
}

std::vector<TableDigest> table_digests(const std::vector<StageKind>& stages, const StageRows& rows) {
  std::vector<TableDigest> out;
  for_each_stage_table(rows, [&](StageKind k, const char* group, const char* table, const auto& v) {
    if (!has_stage(stages, k)) return;
    Sha256 h;
    for (const auto& r : v) hash_row(h, r);
    out.push_back({table_path(group, table), v.size(), h.hex_digest()});
  });
  return out;
}

// ---- PartWriter ----

struct PartWriter::Impl {
  PartInfo info;
  h5::File file;
  std::vector<h5::Group> groups;
  OpenTable<NussinovRow> nussinov_queries, nussinov_targets;
  OpenTable<MirandaHitRow> miranda_hits;
  OpenTable<MirandaPairRow> miranda_pairs;
  OpenTable<BpmaxScoreRow> bpmax_scores;
  OpenTable<BpmaxStructureRow> bpmax_structures;

  template <class F>
  void for_each_table(F&& f) {
    f(StageKind::nussinov, "nussinov", "queries", nussinov_queries);
    f(StageKind::nussinov, "nussinov", "targets", nussinov_targets);
    f(StageKind::miranda, "miranda", "hits", miranda_hits);
    f(StageKind::miranda, "miranda", "pairs", miranda_pairs);
    f(StageKind::bpmax, "bpmax", "scores", bpmax_scores);
    f(StageKind::bpmax, "bpmax", "structures", bpmax_structures);
  }
};

PartWriter::PartWriter(std::string path, PartInfo info)
    : path_(std::move(path)), temp_path_(temporary_name(path_)), impl_(std::make_unique<Impl>()) {
  info.stages = canonical_stages(info.stages);
  impl_->info = std::move(info);
  Impl& m = *impl_;
  try {
    m.file = h5::File::create(temp_path_);
    m.file.set_string("format", kFormat);
    m.file.set_int("part_version", kPartVersion);
    m.file.set_string("screen_version", version_string());
    detail::write_shard_fields(m.file, m.info);
    m.file.set_bool("complete", false);
    for (StageKind k : m.info.stages) {
      m.groups.push_back(m.file.create_group(std::string(manifest::stage_name(k))));
      h5::Group& g = m.groups.back();
      m.for_each_table([&](StageKind kind, const char*, const char* table, auto& t) {
        if (kind != k) return;
        using Row = std::decay_t<decltype(t.writer)>;
        t.writer = Row(g, table, 0);
        t.present = true;
      });
    }
  } catch (...) {
    impl_.reset();
    std::remove(temp_path_.c_str());
    throw;
  }
}

PartWriter::~PartWriter() {
  if (impl_) {
    impl_.reset();  // closes every handle (errors ignored)
    std::remove(temp_path_.c_str());
  }
}

void PartWriter::append_nussinov(Side side, const std::vector<NussinovRow>& rows) {
  if (side == Side::query)
    impl_->nussinov_queries.append(rows, "nussinov/queries", path_);
  else
    impl_->nussinov_targets.append(rows, "nussinov/targets", path_);
}
void PartWriter::append(const std::vector<MirandaHitRow>& rows) { impl_->miranda_hits.append(rows, "miranda/hits", path_); }
void PartWriter::append(const std::vector<MirandaPairRow>& rows) { impl_->miranda_pairs.append(rows, "miranda/pairs", path_); }
void PartWriter::append(const std::vector<BpmaxScoreRow>& rows) { impl_->bpmax_scores.append(rows, "bpmax/scores", path_); }
void PartWriter::append(const std::vector<BpmaxStructureRow>& rows) {
  impl_->bpmax_structures.append(rows, "bpmax/structures", path_);
}

void PartWriter::set_timing(double wall_seconds, std::string device, std::string host) {
  impl_->info.wall_seconds = wall_seconds;
  impl_->info.device = std::move(device);
  impl_->info.host = std::move(host);
}

std::string PartWriter::commit() {
  if (!impl_) throw Error(ExitCode::internal, fmt::format("{}: commit after commit", path_));
  Impl& m = *impl_;
  std::vector<TableDigest> digests;
  m.for_each_table([&](StageKind, const char* group, const char* table, auto& t) {
    if (!t.present) return;
    digests.push_back({table_path(group, table), t.writer.rows(), t.hash.hex_digest()});
    t.writer.close();
  });
  for (auto& g : m.groups) g.close();
  const std::string checksum = part_checksum(m.info, digests);
  m.file.set_double("wall_seconds", m.info.wall_seconds);
  m.file.set_string("device", m.info.device);
  m.file.set_string("host", m.info.host);
  m.file.set_string("checksum", checksum);
  m.file.set_bool("complete", true);
  m.file.flush();
  m.file.close();
  impl_.reset();
  try {
    commit_file(temp_path_, path_);
  } catch (...) {
    std::remove(temp_path_.c_str());
    throw;
  }
  return checksum;
}

// ---- PartReader ----

const char* part_status_name(PartStatus s) {
  switch (s) {
    case PartStatus::ok: return "ok";
    case PartStatus::missing: return "missing";
    case PartStatus::unreadable: return "unreadable";
    case PartStatus::incomplete: return "incomplete";
    case PartStatus::checksum_mismatch: return "checksum mismatch";
    case PartStatus::different_manifest: return "different manifest";
    case PartStatus::different_inputs: return "different inputs";
    case PartStatus::other_version: return "other version";
  }
  return "?";
}

Part PartReader::read(const std::string& path) {
  const h5::File f = h5::File::open(path);
  const std::string format = f.has_attribute("format") ? f.get_string("format") : "";
  if (format != kFormat) throw ResourceError(fmt::format("{}: not a screen part file (format \"{}\")", path, format));
  const std::int64_t version = f.get_int("part_version");
  if (version != kPartVersion)
    throw ResourceError(fmt::format("{}: part file version {}, this screen reads version {}", path, version, kPartVersion));
  Part p;
  detail::read_shard_fields(f, path, p.info);
  p.complete = f.has_attribute("complete") && f.get_bool("complete");
  if (f.has_attribute("checksum")) p.checksum = f.get_string("checksum");
  if (f.has_attribute("wall_seconds")) p.info.wall_seconds = f.get_double("wall_seconds");
  if (f.has_attribute("device")) p.info.device = f.get_string("device");
  if (f.has_attribute("host")) p.info.host = f.get_string("host");
  p.rows = read_stage_tables(f, p.info.stages);
  return p;
}

PartCheck PartReader::check(const std::string& path, const Part& part, const std::string& manifest_sha256,
                            const std::vector<std::string>& input_sha256) {
  PartCheck c;
  c.checksum = part_checksum(part.info, table_digests(part.info.stages, part.rows));
  auto bad = [&](PartStatus s, std::string why) {
    c.status = s;
    c.reason = fmt::format("{}: {}", path, why);
    return c;
  };
  if (!part.complete) return bad(PartStatus::incomplete, "the part file is not marked complete");
  if (part.checksum != c.checksum)
    return bad(PartStatus::checksum_mismatch,
               fmt::format("content checksum mismatch (stored {}, content gives {})",
                           part.checksum.empty() ? "none" : part.checksum, c.checksum));
  if (part.info.manifest_sha256 != manifest_sha256)
    return bad(PartStatus::different_manifest, fmt::format("written for manifest {}, the job's manifest is {}",
                                                           part.info.manifest_sha256, manifest_sha256));
  if (part.info.input_sha256 != input_sha256)
    return bad(PartStatus::different_inputs,
               fmt::format("written for inputs [{}], the job's inputs are [{}]",
                           fmt::join(part.info.input_sha256, ", "), fmt::join(input_sha256, ", ")));
  return c;
}

PartCheck PartReader::verify(const std::string& path, const std::string& manifest_sha256,
                             const std::vector<std::string>& input_sha256) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    PartCheck c;
    c.status = PartStatus::missing;
    c.reason = fmt::format("{}: part file missing", path);
    return c;
  }
  try {
    const h5::File f = h5::File::open(path);
    if (f.has_attribute("format") && f.get_string("format") == kFormat && f.has_attribute("part_version") &&
        f.get_int("part_version") != kPartVersion) {
      PartCheck c;
      c.status = PartStatus::other_version;
      c.reason = fmt::format("{}: written by a screen of part version {}; this screen reads and writes version {}",
                             path, f.get_int("part_version"), kPartVersion);
      return c;
    }
  } catch (const std::exception&) {
    // Unreadable: read() below says how.
  }
  Part p;
  try {
    p = read(path);
  } catch (const std::bad_alloc&) {
    PartCheck c;
    c.status = PartStatus::unreadable;
    c.reason = fmt::format("{}: unreadable (implausible sizes)", path);
    return c;
  } catch (const std::exception& e) {
    PartCheck c;
    c.status = PartStatus::unreadable;
    c.reason = fmt::format("unreadable: {}", e.what());
    return c;
  }
  return check(path, p, manifest_sha256, input_sha256);
}

}  // namespace screen::store
