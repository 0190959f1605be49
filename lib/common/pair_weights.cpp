#include "common/pair_weights.hpp"

#include <fmt/format.h>

#include <cmath>
#include <sstream>
#include <utility>

#include "common/error.hpp"

namespace screen {

namespace {
bool is_half_multiple(double v) { return std::fabs(v * 2.0 - std::round(v * 2.0)) < 1e-9; }
bool is_whole(double v) { return std::fabs(v - std::round(v)) < 1e-9; }
}  // namespace

std::string pair_weight_problem(double v) {
  if (!(v >= 0)) return fmt::format("must be >= 0 (got {})", v);
  if (!is_half_multiple(v)) return fmt::format("must be a multiple of 0.5 (got {})", v);
  if (v > 1000) return fmt::format("must be <= 1000 (got {})", v);
  return "";
}

std::string pair_weights_problem(double cg, double au, double gu) {
  for (const auto& [pair, v] : {std::pair<const char*, double>{"CG", cg}, {"AU", au}, {"GU", gu}}) {
    const std::string p = pair_weight_problem(v);
    if (!p.empty()) return std::string(pair) + " " + p;
  }
  if (cg == 0 && au == 0 && gu == 0) return "at least one pair weight must be > 0";
  return "";
}

PairWeights make_pair_weights(double cg, double au, double gu, const std::string& what) {
  const std::string problem = pair_weights_problem(cg, au, gu);
  if (!problem.empty()) throw UsageError(what + ": " + problem);
  PairWeights pw;
  pw.scale = (is_whole(cg) && is_whole(au) && is_whole(gu)) ? 1 : 2;
  pw.cg = static_cast<int>(std::lround(cg * pw.scale));
  pw.au = static_cast<int>(std::lround(au * pw.scale));
  pw.gu = static_cast<int>(std::lround(gu * pw.scale));
  return pw;
}

PairWeights parse_pair_weights(const std::string& text, double default_cg, double default_au, double default_gu) {
  double cg = default_cg, au = default_au, gu = default_gu;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    auto eq = item.find('=');
    if (eq == std::string::npos)
      throw UsageError(fmt::format("--weights: '{}' is not PAIR=VALUE (for example CG=3,AU=2,GU=1)", item));
    std::string key = item.substr(0, eq);
    for (auto& ch : key) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    for (auto& ch : key) if (ch == 'T') ch = 'U';
    double value = 0;
    try {
      std::size_t used = 0;
      value = std::stod(item.substr(eq + 1), &used);
      if (used != item.size() - eq - 1) throw std::invalid_argument("trailing text");
    } catch (const std::exception&) {
      throw UsageError(fmt::format("--weights: '{}' has no number after '='", item));
    }
    if (key == "CG" || key == "GC") cg = value;
    else if (key == "AU" || key == "UA") au = value;
    else if (key == "GU" || key == "UG") gu = value;
    else throw UsageError(fmt::format("--weights: unknown pair '{}' (expected CG, AU or GU)", key));
  }
  return make_pair_weights(cg, au, gu, "--weights");
}

std::string format_score(long long score, int scale) {
  if (scale == 1) return fmt::format("{}", score);
  if (score % scale == 0) return fmt::format("{}", score / scale);
  return fmt::format("{:.1f}", static_cast<double>(score) / scale);
}

}  // namespace screen
