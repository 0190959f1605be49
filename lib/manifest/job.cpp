#include "manifest/job.hpp"

#include <algorithm>

namespace screen::manifest {

std::string_view stage_name(StageKind kind) {
  switch (kind) {
    case StageKind::nussinov: return "nussinov";
    case StageKind::miranda: return "miranda";
    case StageKind::bpmax: return "bpmax";
  }
  return "?";
}

std::string_view traceback_name(BpmaxTraceback t) {
  switch (t) {
    case BpmaxTraceback::none: return "none";
    case BpmaxTraceback::top: return "top";
    case BpmaxTraceback::all: return "all";
  }
  return "?";
}

std::string_view strand_name(Strand s) { return s == Strand::both ? "both" : "forward"; }

bool Job::enabled(StageKind kind) const {
  return std::find(stage_order.begin(), stage_order.end(), kind) != stage_order.end();
}

bool Job::any_both_strands() const {
  return std::any_of(targets.begin(), targets.end(), [](const SetSpec& s) { return s.strand == Strand::both; });
}

}  // namespace screen::manifest
