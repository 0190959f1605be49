#include "plan/stage_params.hpp"

#include <cmath>

namespace screen::plan {

StageParams stage_params(const manifest::Job& job) {
  StageParams s;
  s.nussinov.min_loop = job.nussinov.min_loop;
  s.nussinov.max_span = job.nussinov.max_span;
  s.nussinov.weights = job.nussinov.pairs;
  s.nussinov_traceback = job.nussinov.traceback;

  s.miranda.score_threshold = job.miranda.score_threshold;
  s.miranda.scale = job.miranda.scale;
  s.miranda.gap_open = job.miranda.gap_open;
  s.miranda.gap_extend = job.miranda.gap_extend;
  s.miranda.strict = job.miranda.strict;
  s.miranda.max_hits_per_pair = job.miranda.max_hits_per_pair;
  s.miranda.energy = job.miranda.energy;
  s.miranda.energy_threshold = job.miranda.energy_threshold;
  s.miranda.temperature = job.miranda.temperature;

  s.bpmax.weights = job.bpmax.pairs;
  s.bpmax.query_window = job.bpmax.query_window;
  s.bpmax.target_window = job.bpmax.target_window;
  switch (job.bpmax.traceback) {
    case manifest::BpmaxTraceback::none: s.bpmax_traceback = bpmax::TracebackMode::none(); break;
    case manifest::BpmaxTraceback::all: s.bpmax_traceback = bpmax::TracebackMode::all(); break;
    case manifest::BpmaxTraceback::top:
      // report_threshold is in user units; scores are in units of 1/scale: score >= threshold * scale.
      s.bpmax_traceback = bpmax::TracebackMode::top(
          static_cast<long long>(std::ceil(job.bpmax.report_threshold * job.bpmax.pairs.scale)));
      break;
  }
  return s;
}

}  // namespace screen::plan
