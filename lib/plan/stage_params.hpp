#pragma once
// The stage parameters a Job gives each stage's code paths (one place, so the planner, the engine
// and the tests cannot disagree on them).
#include "manifest/job.hpp"
#include "stages/bpmax/interact.hpp"
#include "stages/miranda/reference.hpp"
#include "stages/nussinov/nussinov_defs.hpp"

namespace screen::plan {

struct StageParams {
  nussinov::Params nussinov;
  bool nussinov_traceback = true;
  miranda::Params miranda;
  bpmax::Params bpmax;
  bpmax::TracebackMode bpmax_traceback;
};

StageParams stage_params(const manifest::Job& job);

}  // namespace screen::plan
