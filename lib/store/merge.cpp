#include "store/merge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

#include "common/error.hpp"
#include "common/version.hpp"
#include "store/durable.hpp"
#include "store/lock.hpp"
#include "store/part_file.hpp"
#include "store/table_io.hpp"

namespace screen::store {

namespace {

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

double user_weight(int w, int scale) { return static_cast<double>(w) / static_cast<double>(scale); }

// Pair weights in the user's units, and the scale that turns the stored integer scores into them.
void write_weights(const PairWeights& w, h5::Group& g) {
  g.set_double("weight_cg", user_weight(w.cg, w.scale));
  g.set_double("weight_au", user_weight(w.au, w.scale));
  g.set_double("weight_gu", user_weight(w.gu, w.scale));
  g.set_int("score_scale", w.scale);
}

void write_stage_params(const manifest::Job& job, StageKind k, h5::Group& g) {
  switch (k) {
    case StageKind::nussinov: {
      const auto& p = job.nussinov;
      g.set_int("min_loop", p.min_loop);
      g.set_int("max_span", p.max_span);
      write_weights(p.pairs, g);
      g.set_bool("traceback", p.traceback);
      break;
    }
    case StageKind::miranda: {
      const auto& p = job.miranda;
      g.set_double("score_threshold", p.score_threshold);
      g.set_double("scale", p.scale);
      g.set_double("gap_open", p.gap_open);
      g.set_double("gap_extend", p.gap_extend);
      g.set_bool("strict", p.strict);
      g.set_int("max_hits_per_pair", p.max_hits_per_pair);
      g.set_bool("energy", p.energy);
      g.set_double("energy_threshold", p.energy_threshold);
      g.set_double("temperature", p.temperature);
      if (job.any_both_strands()) g.set_string("strands", "both");  // the tables' strand column is in use
      break;
    }
    case StageKind::bpmax: {
      const auto& p = job.bpmax;
      g.set_int("query_window", p.query_window);
      g.set_int("target_window", p.target_window);
      write_weights(p.pairs, g);
      g.set_string("traceback", std::string(manifest::traceback_name(p.traceback)));
      g.set_double("report_threshold", p.report_threshold);
      if (job.any_both_strands()) g.set_string("strands", "both");
      break;
    }
  }
}

template <class Row>
void sort_and_check(std::vector<Row>& rows, const char* table) {
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return row_less(a, b); });
  if constexpr (Table<Row>::unique_key) {
    for (std::size_t i = 1; i < rows.size(); ++i)
      if (Table<Row>::key(rows[i - 1]) == Table<Row>::key(rows[i]))
        throw ConflictError(fmt::format("/{}: two parts hold rows for the same key ({} and {}); parts of "
                                        "overlapping shards cannot be merged",
                                        table, describe(rows[i - 1]), describe(rows[i])));
  }
}

void check_index(std::uint64_t index, std::size_t count, const char* table, const char* column, const char* side) {
  if (index >= count)
    throw Error(ExitCode::internal, fmt::format("/{}: {} {} is outside /{} ({} rows)", table, column, index, side, count));
}

}  // namespace

MergeSummary merge_results(const MergeSpec& spec, const std::string& output_path) {
  if (!spec.job) throw Error(ExitCode::internal, "merge_results: no job given");
  const manifest::Job& job = *spec.job;
  const std::vector<StageKind> job_stages = canonical_stages(job.stage_order);
  std::vector<std::string> input_sha;
  for (const auto& in : spec.inputs) input_sha.push_back(in.sha256);

  MergeSummary summary;
  StageRows all;
  std::vector<ShardRow> shards;
  std::map<std::int64_t, std::string> shard_source;
  auto add_shard = [&](ShardRow row, const std::string& source) {
    const auto [it, fresh] = shard_source.emplace(row.id, source);
    if (!fresh)
      throw ConflictError(fmt::format("shard {} appears twice: {} and {}", row.id, it->second, source));
    shards.push_back(std::move(row));
  };

  for (const auto& path : spec.parts) {
    Part p = PartReader::read(path);
    const PartCheck c = PartReader::check(path, p, job.results_sha256, input_sha);
    if (c.status == PartStatus::different_manifest || c.status == PartStatus::different_inputs)
      throw ConflictError(c.reason);
    if (!c.ok()) throw ResourceError(c.reason);
    for (StageKind k : p.info.stages)
      if (!has_stage(job_stages, k))
        throw ConflictError(fmt::format("{}: holds {} rows, a stage the job does not run", path, manifest::stage_name(k)));
    add_shard({p.info.shard_id, p.info.unit_begin, p.info.unit_end, "complete", p.info.wall_seconds, p.info.device,
               p.info.host, base_name(path), p.checksum},
              path);
    // Pool the rows table by table (same field in `all`).
    auto pool = [](auto& into, auto& from) {
      into.insert(into.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
      from.clear();
    };
    pool(all.nussinov_queries, p.rows.nussinov_queries);
    pool(all.nussinov_targets, p.rows.nussinov_targets);
    pool(all.miranda_hits, p.rows.miranda_hits);
    pool(all.miranda_pairs, p.rows.miranda_pairs);
    pool(all.bpmax_scores, p.rows.bpmax_scores);
    pool(all.bpmax_structures, p.rows.bpmax_structures);
    ++summary.parts;
  }
  for (const auto& s : spec.other_shards) add_shard(s, "the engine's shard list");
  std::sort(shards.begin(), shards.end(), [](const ShardRow& a, const ShardRow& b) { return a.id < b.id; });
  {
    std::vector<const ShardRow*> by_units;
    for (const auto& s : shards)
      if (s.unit_end > s.unit_begin) by_units.push_back(&s);
    std::sort(by_units.begin(), by_units.end(),
              [](const ShardRow* a, const ShardRow* b) { return a->unit_begin < b->unit_begin; });
    for (std::size_t i = 1; i < by_units.size(); ++i)
      if (by_units[i]->unit_begin < by_units[i - 1]->unit_end)
        throw ConflictError(fmt::format("shards {} and {} cover overlapping work units ([{}, {}) and [{}, {}))",
                                        by_units[i - 1]->id, by_units[i]->id, by_units[i - 1]->unit_begin,
                                        by_units[i - 1]->unit_end, by_units[i]->unit_begin, by_units[i]->unit_end));
  }

  for_each_stage_table(all, [&](StageKind, const char* group, const char* table, auto& v) {
    const std::string name = fmt::format("{}/{}", group, table);
    sort_and_check(v, name.c_str());
    summary.rows += v.size();
  });
  {
    std::vector<std::tuple<std::uint64_t, std::uint64_t, std::uint8_t, std::int32_t>> keys;
    keys.reserve(all.miranda_hits.size());
    for (const auto& h : all.miranda_hits) keys.emplace_back(h.query, h.target, h.strand, h.rank);
    std::sort(keys.begin(), keys.end());
    if (std::adjacent_find(keys.begin(), keys.end()) != keys.end())
      throw ConflictError("/miranda/hits: two parts hold hits of the same pair; parts of overlapping shards cannot be merged");
  }
  const std::size_t nq = spec.queries.size(), nt = spec.targets.size();
  for (const auto& r : all.nussinov_queries) check_index(r.sequence, nq, "nussinov/queries", "sequence", "queries");
  for (const auto& r : all.nussinov_targets) check_index(r.sequence, nt, "nussinov/targets", "sequence", "targets");
  auto check_pairs = [&](const auto& v, const char* table) {
    for (const auto& r : v) {
      check_index(r.query, nq, table, "query", "queries");
      check_index(r.target, nt, table, "target", "targets");
    }
  };
  check_pairs(all.miranda_hits, "miranda/hits");
  check_pairs(all.miranda_pairs, "miranda/pairs");
  check_pairs(all.bpmax_scores, "bpmax/scores");
  check_pairs(all.bpmax_structures, "bpmax/structures");

  write_durably(output_path, [&](const std::string& temp) {
    h5::File f = h5::File::create(temp);
    f.set_int("schema_version", kSchemaVersion);
    f.set_string("format", "screen results");
    f.set_string("screen_version", version_string());
    f.set_string("git_commit", git_commit());
    f.set_string("job_name", job.name);
    f.set_string("manifest", job.manifest_text);
    f.set_string("manifest_sha256", job.manifest_sha256);
    std::vector<std::string> sides, sets, paths;
    for (const auto& in : spec.inputs) {
      sides.push_back(in.side);
      sets.push_back(in.set);
      paths.push_back(in.path);
    }
    f.set_strings("input_sides", sides);
    f.set_strings("input_sets", sets);
    f.set_strings("input_paths", paths);
    f.set_strings("input_sha256", input_sha);
    f.set_strings("stages", stage_names(job.stage_order));
    f.set_string("created", spec.run.created.empty() ? utc_now() : spec.run.created);
    f.set_strings("hosts", spec.run.hosts);
    f.set_strings("devices", spec.run.devices);
    f.set_string("command_line", spec.run.command_line);

    write_table(f, "queries", spec.queries);
    write_table(f, "targets", spec.targets);
    write_table(f, "skipped", spec.skipped);
    write_stage_tables(f, job_stages, all, [&job](StageKind k, h5::Group& g) { write_stage_params(job, k, g); });
    write_table(f, "shards", shards);
    f.flush();
    f.close();
  });
  return summary;
}

}  // namespace screen::store
