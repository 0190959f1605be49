#pragma once
// What the merge into results.h5 gets from a run: the sequence tables, /skipped (the records the
// inputs skipped, then the work units the plan skipped), the parts of every shard, and the hosts
// and devices of the timing log.
#include <string>
#include <vector>

#include "engine/inputs.hpp"
#include "manifest/job.hpp"
#include "plan/plan.hpp"
#include "store/merge.hpp"

namespace screen::engine {

// /skipped rows of the plan's skipped units. A Nussinov unit: its record (side "query" or
// "target"), reason "nussinov: ...". A pair: side "pair", set "QUERYSET&TARGETSET", name
// "QUERY&TARGET", index_in_file and length of the target, reason "bpmax: ..." (or "miranda: ...").
std::vector<store::SkippedRow> skipped_unit_rows(const plan::Plan& p, const Inputs& in);

store::MergeSpec merge_spec(const manifest::Job& job, const Inputs& in, const plan::Plan& p,
                            const std::string& output, const std::string& command_line);

}  // namespace screen::engine
