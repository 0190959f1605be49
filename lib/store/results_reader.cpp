#include "store/results_reader.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "store/table_io.hpp"

namespace screen::store {

namespace {

// The file opened read-only, or InputError (exit 4) saying in one line why it cannot be: missing,
// unreadable, not HDF5 at all, or HDF5 that does not open (a truncated or damaged copy). HDF5's
// error stack stays out of the message: it says nothing more to the user.
h5::File open_results(const std::string& path) {
  const std::string why = h5::unreadable_reason(path);
  if (!why.empty()) throw InputError(fmt::format("{}: {}", path, why));
  try {
    return h5::File::open(path);
  } catch (const ResourceError&) {
    throw InputError(fmt::format("{}: a damaged HDF5 file (truncated or corrupt): it cannot be opened; "
                                 "`screen merge` writes it again from the job's part files",
                                 path));
  }
}

}  // namespace

ResultsReader::ResultsReader(const std::string& path) : path_(path), file_(open_results(path)) {
  const h5::File& f = file_;
  if (!f.has_attribute("schema_version"))
    throw InputError(fmt::format("{}: not a screen results file (no schema_version attribute)", path));
  info_.schema_version = f.get_int("schema_version");
  if (info_.schema_version != kSchemaVersion)
    throw InputError(fmt::format("{}: results schema_version {}; this screen reads schema_version {}", path,
                                    info_.schema_version, kSchemaVersion));
  info_.screen_version = f.get_string("screen_version");
  info_.git_commit = f.get_string("git_commit");
  info_.job_name = f.get_string("job_name");
  info_.manifest = f.get_string("manifest");
  info_.manifest_sha256 = f.get_string("manifest_sha256");
  const auto sides = f.get_strings("input_sides");
  const auto sets = f.get_strings("input_sets");
  const auto paths = f.get_strings("input_paths");
  const auto shas = f.get_strings("input_sha256");
  if (sets.size() != sides.size() || paths.size() != sides.size() || shas.size() != sides.size())
    throw ResourceError(fmt::format("{}: input_* attributes of different lengths", path));
  for (std::size_t i = 0; i < sides.size(); ++i) info_.inputs.push_back({sides[i], sets[i], paths[i], shas[i]});
  info_.stages = stages_from_names(f.get_strings("stages"), path);
  info_.created = f.get_string("created");
  info_.hosts = f.get_strings("hosts");
  info_.devices = f.get_strings("devices");
  info_.command_line = f.get_string("command_line");
}

bool ResultsReader::has_stage(StageKind k) const { return store::has_stage(info_.stages, k); }

std::vector<SequenceRow> ResultsReader::queries() const { return read_table<SequenceRow>(file_, "queries"); }
std::vector<SequenceRow> ResultsReader::targets() const { return read_table<SequenceRow>(file_, "targets"); }
std::vector<SkippedRow> ResultsReader::skipped() const { return read_table<SkippedRow>(file_, "skipped"); }
std::vector<ShardRow> ResultsReader::shards() const { return read_table<ShardRow>(file_, "shards"); }

h5::Group ResultsReader::stage_group(StageKind k) const {
  if (!has_stage(k))
    throw ResourceError(fmt::format("{}: the job did not run the {} stage", path_, manifest::stage_name(k)));
  return file_.open_group(std::string(manifest::stage_name(k)));
}

std::vector<NussinovRow> ResultsReader::nussinov(Side side) const {
  return read_table<NussinovRow>(stage_group(StageKind::nussinov), side == Side::query ? "queries" : "targets");
}
std::vector<MirandaHitRow> ResultsReader::miranda_hits() const {
  return read_table<MirandaHitRow>(stage_group(StageKind::miranda), "hits");
}
std::vector<MirandaPairRow> ResultsReader::miranda_pairs() const {
  return read_table<MirandaPairRow>(stage_group(StageKind::miranda), "pairs");
}
std::vector<BpmaxScoreRow> ResultsReader::bpmax_scores() const {
  return read_table<BpmaxScoreRow>(stage_group(StageKind::bpmax), "scores");
}
std::vector<BpmaxStructureRow> ResultsReader::bpmax_structures() const {
  return read_table<BpmaxStructureRow>(stage_group(StageKind::bpmax), "structures");
}

StageRows ResultsReader::stage_rows() const { return read_stage_tables(file_, info_.stages); }

}  // namespace screen::store
