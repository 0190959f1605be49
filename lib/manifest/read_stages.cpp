// stages: nussinov, miranda, bpmax, in the order the manifest lists them.
#include <fmt/format.h>

#include <climits>
#include <cmath>

#include "common/error.hpp"
#include "common/pair_weights.hpp"
#include "manifest/param_rules.hpp"
#include "manifest/sections.hpp"

namespace screen::manifest {

namespace {

// Pair weights in user units.
struct UserWeights {
  double cg, au, gu;
};

// One weight (rules::pair_weight). False (and a problem) otherwise.
bool read_weight(const Field& f, double& out) {
  auto v = f.number();
  if (!v || !f.accept(rules::pair_weight(*v))) return false;
  out = *v;
  return true;
}

// `pairs: {AU: .., CG: .., GU: ..}`. A pair left out of the mapping gets `omitted`'s weight.
void read_pairs(const Field& f, PairWeights& out, UserWeights omitted) {
  Section s(f, {"AU", "CG", "GU"});
  if (!s.ok()) return;
  UserWeights w = omitted;
  bool ok = true;
  if (s.has("AU")) ok = read_weight(s["AU"], w.au) && ok;
  if (s.has("CG")) ok = read_weight(s["CG"], w.cg) && ok;
  if (s.has("GU")) ok = read_weight(s["GU"], w.gu) && ok;
  if (!ok) return;  // reported; the "all zero" check would only repeat it
  if (!f.accept(rules::pair_weights(w.cg, w.au, w.gu))) return;
  try {
    out = make_pair_weights(w.cg, w.au, w.gu, f.path());
  } catch (const Error& e) {
    f.problem(e.what());
  }
}

// `enabled` defaults to true once the stage's section is present.
bool read_enabled(const Section& s) {
  if (!s.has("enabled")) return true;
  return s["enabled"].boolean().value_or(true);  // a bad value is reported; do not cascade
}

void read_nussinov(const Field& f, NussinovParams& p) {
  Section s(f, {"enabled", "min_loop", "max_span", "pairs", "traceback"});
  if (!s.ok()) return;
  p.enabled = read_enabled(s);
  if (s.has("min_loop")) {
    if (auto v = s["min_loop"].integer(); v && s["min_loop"].accept(rules::nussinov_min_loop(*v)))
      p.min_loop = static_cast<int>(*v);
  }
  if (s.has("max_span")) {
    if (auto v = s["max_span"].integer(); v && s["max_span"].accept(rules::nussinov_max_span(*v, p.min_loop)))
      p.max_span = static_cast<int>(*v);
  }
  // nussinov.md: a pair not listed has weight 0.
  if (s.has("pairs")) read_pairs(s["pairs"], p.pairs, {0, 0, 0});
  if (s.has("traceback")) {
    if (auto v = s["traceback"].boolean()) p.traceback = *v;
  }
}

void read_miranda(const Field& f, MirandaParams& p) {
  Section s(f, {"enabled", "score_threshold", "scale", "gap_open", "gap_extend", "strict", "max_hits_per_pair", "energy",
                "energy_threshold", "temperature"});
  if (!s.ok()) return;
  p.enabled = read_enabled(s);
  if (s.has("score_threshold")) {
    if (auto v = s["score_threshold"].number(); v && s["score_threshold"].accept(rules::miranda_score_threshold(*v)))
      p.score_threshold = *v;
  }
  if (s.has("scale")) {
    if (auto v = s["scale"].number(); v && s["scale"].accept(rules::miranda_scale(*v))) p.scale = *v;
  }
  for (const char* key : {"gap_open", "gap_extend"}) {
    if (!s.has(key)) continue;
    if (auto v = s[key].number(); v && s[key].accept(rules::miranda_gap_penalty(*v)))
      (std::string(key) == "gap_open" ? p.gap_open : p.gap_extend) = *v;
  }
  if (s.has("strict")) {
    if (auto v = s["strict"].boolean()) p.strict = *v;
  }
  if (s.has("max_hits_per_pair")) {
    if (auto v = s["max_hits_per_pair"].integer(); v && s["max_hits_per_pair"].accept(rules::miranda_max_hits(*v)))
      p.max_hits_per_pair = static_cast<int>(*v);
  }
  if (s.has("energy")) {
    if (auto v = s["energy"].boolean()) p.energy = *v;
  }
  if (s.has("energy_threshold")) {
    if (auto v = s["energy_threshold"].number(); v && s["energy_threshold"].accept(rules::energy_threshold(*v)))
      p.energy_threshold = *v;
  }
  if (s.has("temperature")) {
    if (auto v = s["temperature"].number(); v && s["temperature"].accept(rules::energy_temperature(*v)))
      p.temperature = *v;
  }
}

void read_bpmax(const Field& f, BpmaxParams& p) {
  Section s(f, {"enabled", "query_window", "target_window", "pairs", "traceback", "report_threshold"});
  if (!s.ok()) return;
  p.enabled = read_enabled(s);
  if (s.has("query_window")) {
    if (auto v = s["query_window"].integer(); v && s["query_window"].accept(rules::bpmax_window(*v)))
      p.query_window = static_cast<int>(*v);
  }
  if (s.has("target_window")) {
    if (auto v = s["target_window"].integer(); v && s["target_window"].accept(rules::bpmax_window(*v)))
      p.target_window = static_cast<int>(*v);
  }
  // bpmax.md fixes CG at 3 and gives AU and GU defaults: a pair left out keeps its default.
  if (s.has("pairs")) read_pairs(s["pairs"], p.pairs, {3, 2, 1});
  if (s.has("traceback")) {
    if (auto v = s["traceback"].choice({"none", "top", "all"}))
      p.traceback = *v == "none" ? BpmaxTraceback::none : *v == "all" ? BpmaxTraceback::all : BpmaxTraceback::top;
  }
  if (s.has("report_threshold")) {
    if (auto v = s["report_threshold"].number(); v && s["report_threshold"].accept(rules::bpmax_report_threshold(*v)))
      p.report_threshold = *v;
  }
}

}  // namespace

void read_stages(const Field& field, Job& job) {
  Section s(field, {"nussinov", "miranda", "bpmax"});
  if (!s.ok()) return;
  for (const auto& key : s.order()) {
    const Field f = s[key];
    // `bpmax: true` / `bpmax: false`: the stage with its defaults, or explicitly off.
    const bool shorthand = f.node().IsScalar();
    const bool on = shorthand ? f.boolean().value_or(true) : true;
    StageKind kind = StageKind::nussinov;
    bool enabled = false;
    if (key == "nussinov") {
      if (shorthand) job.nussinov.enabled = on;
      else read_nussinov(f, job.nussinov);
      enabled = job.nussinov.enabled;
    } else if (key == "miranda") {
      kind = StageKind::miranda;
      if (shorthand) job.miranda.enabled = on;
      else read_miranda(f, job.miranda);
      enabled = job.miranda.enabled;
    } else {
      kind = StageKind::bpmax;
      if (shorthand) job.bpmax.enabled = on;
      else read_bpmax(f, job.bpmax);
      enabled = job.bpmax.enabled;
    }
    if (enabled) job.stage_order.push_back(kind);
  }
  if (job.stage_order.empty())
    field.problem("no stage is enabled (enable at least one of nussinov, miranda, bpmax)");
}

}  // namespace screen::manifest
