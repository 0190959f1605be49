#include "store/stage_rows.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.hpp"
#include "store/table_io.hpp"

namespace screen::store {

namespace {
constexpr StageKind kAllStages[] = {StageKind::nussinov, StageKind::miranda, StageKind::bpmax};
}

std::vector<StageKind> canonical_stages(const std::vector<StageKind>& stages) {
  std::vector<StageKind> out;
  for (StageKind k : kAllStages)
    if (has_stage(stages, k)) out.push_back(k);
  return out;
}

bool has_stage(const std::vector<StageKind>& stages, StageKind k) {
  return std::find(stages.begin(), stages.end(), k) != stages.end();
}

std::vector<std::string> stage_names(const std::vector<StageKind>& stages) {
  std::vector<std::string> out;
  for (StageKind k : stages) out.emplace_back(manifest::stage_name(k));
  return out;
}

std::vector<StageKind> stages_from_names(const std::vector<std::string>& names, const std::string& where) {
  std::vector<StageKind> out;
  for (const auto& n : names) {
    bool found = false;
    for (StageKind k : kAllStages) {
      if (manifest::stage_name(k) == n) {
        out.push_back(k);
        found = true;
      }
    }
    if (!found) throw ResourceError(fmt::format("{}: unknown stage \"{}\"", where, n));
  }
  return out;
}

void write_stage_tables(h5::Group& root, const std::vector<StageKind>& stages, const StageRows& rows,
                        const std::function<void(StageKind, h5::Group&)>& on_group) {
  for (StageKind k : canonical_stages(stages)) {
    h5::Group g = root.create_group(std::string(manifest::stage_name(k)));
    if (on_group) on_group(k, g);
    for_each_stage_table(rows, [&](StageKind kind, const char*, const char* table, const auto& v) {
      if (kind == k) write_table(g, table, v);
    });
    g.close();
  }
}

StageRows read_stage_tables(const h5::Group& root, const std::vector<StageKind>& stages) {
  StageRows rows;
  for (StageKind k : canonical_stages(stages)) {
    const h5::Group g = root.open_group(std::string(manifest::stage_name(k)));
    for_each_stage_table(rows, [&](StageKind kind, const char*, const char* table, auto& v) {
      using Row = typename std::decay_t<decltype(v)>::value_type;
      if (kind == k) v = read_table<Row>(g, table);
    });
  }
  return rows;
}

}  // namespace screen::store
