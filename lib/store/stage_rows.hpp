#pragma once
// StageRows: the stage tables one part file or one results file holds, and their fixed places:
//   nussinov/queries, nussinov/targets   NussinovRow
//   miranda/hits, miranda/pairs          MirandaHitRow, MirandaPairRow
//   bpmax/scores, bpmax/structures       BpmaxScoreRow, BpmaxStructureRow
// A stage's tables are present exactly when the stage is (possibly with no rows).
#include <functional>
#include <string>
#include <vector>

#include "manifest/job.hpp"
#include "store/h5.hpp"
#include "store/tables.hpp"

namespace screen::store {

using manifest::StageKind;

enum class Side : std::uint8_t { query = 0, target = 1 };

struct StageRows {
  std::vector<NussinovRow> nussinov_queries;
  std::vector<NussinovRow> nussinov_targets;
  std::vector<MirandaHitRow> miranda_hits;
  std::vector<MirandaPairRow> miranda_pairs;
  std::vector<BpmaxScoreRow> bpmax_scores;
  std::vector<BpmaxStructureRow> bpmax_structures;
};

// f(StageKind, group name, table name, rows vector) for every table, in the fixed order above.
template <class Rows, class F>
void for_each_stage_table(Rows& r, F&& f) {
  f(StageKind::nussinov, "nussinov", "queries", r.nussinov_queries);
  f(StageKind::nussinov, "nussinov", "targets", r.nussinov_targets);
  f(StageKind::miranda, "miranda", "hits", r.miranda_hits);
  f(StageKind::miranda, "miranda", "pairs", r.miranda_pairs);
  f(StageKind::bpmax, "bpmax", "scores", r.bpmax_scores);
  f(StageKind::bpmax, "bpmax", "structures", r.bpmax_structures);
}

// The stages in the fixed order nussinov, miranda, bpmax (duplicates dropped).
std::vector<StageKind> canonical_stages(const std::vector<StageKind>& stages);
bool has_stage(const std::vector<StageKind>& stages, StageKind k);
std::vector<std::string> stage_names(const std::vector<StageKind>& stages);
// Throws ResourceError naming `where` for an unknown name.
std::vector<StageKind> stages_from_names(const std::vector<std::string>& names, const std::string& where);

// Writes the tables of `stages` under root (one group per stage; on_group, when given, is called
// with each new group before its tables are written, e.g. to set the stage's attributes).
void write_stage_tables(h5::Group& root, const std::vector<StageKind>& stages, const StageRows& rows,
                        const std::function<void(StageKind, h5::Group&)>& on_group = {});
// Reads the tables of `stages` (others are left empty).
StageRows read_stage_tables(const h5::Group& root, const std::vector<StageKind>& stages);

}  // namespace screen::store
