#include "manifest/param_rules.hpp"

#include <fmt/format.h>

#include <climits>

#include "common/error.hpp"
#include "common/pair_weights.hpp"

namespace screen::manifest::rules {

namespace {

// "1.5", "140", "-9": the value as a user wrote it, not "140.000000".
std::string num(double v) { return fmt::format("{}", v); }

// The first control character of `v` (bytes < 0x20 and DEL), or npos.
std::size_t first_control(const std::string& v) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto c = static_cast<unsigned char>(v[i]);
    if (c < 0x20 || c == 0x7f) return i;
  }
  return std::string::npos;
}

// The words of Field::integer(min, max), so that both sides of an integer rule read alike.
std::string int_range(long long v, long long min, long long max) {
  if (v < min) return fmt::format("must be >= {} (got {})", min, v);
  if (v > max) return fmt::format("must be <= {} (got {})", max, v);
  return "";
}

std::string control_problem(const std::string& v) {
  const std::size_t i = first_control(v);
  if (i == std::string::npos) return "";
  return fmt::format("contains a control character ({} at byte {}); newlines, tabs and other control characters "
                     "are not accepted",
                     quoted_for_message(v.substr(i, 1)), i + 1);
}

}  // namespace

std::string miranda_score_threshold(double v) {
  if (!(v > 0) || v > 1'000'000) return fmt::format("must be > 0 and <= 1000000 (got {})", num(v));
  return "";
}

std::string miranda_scale(double v) {
  if (!(v > 0) || v > 100) return fmt::format("must be > 0 and <= 100 (got {})", num(v));
  return "";
}

std::string miranda_gap_penalty(double v) {
  if (!(v <= 0) || v < -1000) return fmt::format("must be a penalty between -1000 and 0 (got {})", num(v));
  return "";
}

std::string miranda_max_hits(long long v) { return int_range(v, 0, INT_MAX); }

std::string nussinov_min_loop(long long v) { return int_range(v, 0, 1000); }

std::string nussinov_max_span(long long v, long long min_loop) {
  if (std::string p = int_range(v, 0, INT_MAX); !p.empty()) return p;
  if (v != 0 && v <= min_loop + 1)
    return fmt::format("must be 0 (unlimited) or > min_loop + 1 = {}, else no pair can form (got {})", min_loop + 1,
                       v);
  return "";
}

std::string pair_weight(double v) { return pair_weight_problem(v); }

std::string pair_weights(double cg, double au, double gu) { return pair_weights_problem(cg, au, gu); }

std::string bpmax_window(long long v) { return int_range(v, 0, INT_MAX); }

std::string bpmax_report_threshold(double v) {
  if (!(v >= 0)) return fmt::format("must be >= 0 (got {})", num(v));
  return "";
}

std::string cpu_threads(long long v) { return int_range(v, 0, 4096); }

std::string shard_count(long long v) { return int_range(v, 1, 10'000'000); }

std::string name(const std::string& v) {
  if (v.empty()) return "must not be empty";
  if (v.size() > 100) return fmt::format("is {} characters long; at most 100 are accepted", v.size());
  for (const char c : v) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || c == '.';
    if (!ok) return fmt::format("{} may use only letters, digits, '_', '-' and '.'", quoted_for_message(v));
  }
  if (v == "." || v == "..") return fmt::format("'{}' is not a usable name", v);
  return "";
}

std::string text_value(const std::string& v) {
  if (v.size() > 4096) return fmt::format("is {} bytes long; at most 4096 are accepted", v.size());
  return control_problem(v);
}

std::string path_value(const std::string& v) { return control_problem(v); }

void require_option(const std::string& option, const std::string& problem) {
  if (!problem.empty()) throw UsageError(option + ": " + problem);
}

std::string quoted_for_message(const std::string& v, std::size_t max_chars) {
  std::string out = "'";
  std::size_t shown = 0;
  for (const char ch : v) {
    if (shown == max_chars) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
    else out += ch;
    ++shown;
  }
  return out + "'";
}

}  // namespace screen::manifest::rules
