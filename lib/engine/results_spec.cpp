#include "engine/results_spec.hpp"

#include <set>

#include "engine/folder.hpp"
#include "engine/run_state.hpp"
#include "store/lock.hpp"

namespace screen::engine {

std::vector<store::SkippedRow> skipped_unit_rows(const plan::Plan& p, const Inputs& in) {
  std::vector<store::SkippedRow> rows;
  for (const auto& k : p.skipped) {
    const plan::WorkUnit& u = k.unit;
    const std::string stage(manifest::stage_name(u.stage));
    store::SkippedRow r;
    if (u.stage == plan::StageKind::nussinov) {
      const store::SequenceRow& s = u.side == 0 ? in.query_rows[u.a] : in.target_rows[u.a];
      r.side = u.side == 0 ? "query" : "target";
      r.set = s.set;
      r.name = s.name;
      r.index_in_file = s.index_in_file;
      r.length = s.length;
    } else {
      const store::SequenceRow& q = in.query_rows[u.a];
      const store::SequenceRow& t = in.target_rows[u.b];
      r.side = "pair";
      r.set = q.set + "&" + t.set;
      r.name = q.name + "&" + t.name + (u.side == 1 ? "(-)" : "");  // (-): the target's reverse complement
      r.index_in_file = t.index_in_file;
      r.length = t.length;
    }
    r.reason = stage + ": " + k.reason;
    rows.push_back(std::move(r));
  }
  return rows;
}

store::MergeSpec merge_spec(const manifest::Job& job, const Inputs& in, const plan::Plan& p,
                            const std::string& output, const std::string& command_line) {
  store::MergeSpec spec;
  spec.job = &job;
  spec.inputs = in.files;
  spec.queries = in.query_rows;
  spec.targets = in.target_rows;
  spec.skipped = in.skipped;
  for (auto& r : skipped_unit_rows(p, in)) spec.skipped.push_back(std::move(r));
  for (const auto& s : p.shards) spec.parts.push_back(output + "/" + part_name(s.id));
  spec.run.command_line = command_line;
  std::set<std::string> hosts, devices;
  for (const auto& t : read_timing(output)) {
    hosts.insert(t.host);
    devices.insert(t.device);
  }
  if (hosts.empty()) hosts.insert(store::host_name());
  spec.run.hosts.assign(hosts.begin(), hosts.end());
  spec.run.devices.assign(devices.begin(), devices.end());
  return spec;
}

}  // namespace screen::engine
