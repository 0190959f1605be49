#include "manifest/param_rules.hpp"

#include <fmt/format.h>

#include <climits>

#include "common/error.hpp"
#include "common/pair_weights.hpp"

namespace screen::manifest {

namespace {
bool is_control_byte(char c) {
  const auto b = static_cast<unsigned char>(c);
  return b < 0x20 || b == 0x7f;
}
}  // namespace

std::optional<std::string> control_character(std::string_view text) {
  for (const char c : text) {
    if (!is_control_byte(c)) continue;
    if (c == '\n') return std::string("a newline (\\n)");
    if (c == '\r') return std::string("a carriage return (\\r)");
    if (c == '\t') return std::string("a tab (\\t)");
    if (c == '\0') return std::string("a NUL byte");
    return fmt::format("control character 0x{:02x}", static_cast<unsigned char>(c));
  }
  return std::nullopt;
}

std::string printable(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (is_control_byte(c))
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    else
      out += c;
  }
  return out;
}

}  // namespace screen::manifest

namespace screen::manifest::rules {

namespace {

// "1.5", "140", "-9": the value as a user wrote it, not "140.000000".
std::string num(double v) { return fmt::format("{}", v); }

// The words of Field::integer(min, max), so that both sides of an integer rule read alike.
std::string int_range(long long v, long long min, long long max) {
  if (v < min) return fmt::format("must be >= {} (got {})", min, v);
  if (v > max) return fmt::format("must be <= {} (got {})", max, v);
  return "";
}

std::string control_problem(const std::string& v) {
  const auto c = control_character(v);
  if (!c) return "";
  return quoted_for_message(v) + " contains " + *c + "; newlines, tabs and other control characters are not accepted";
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

std::string energy_temperature(double v) {
  if (!(v >= -50 && v <= 100)) return fmt::format("must be between -50 and 100 degrees C (got {})", num(v));
  return "";
}

std::string energy_threshold(double v) {
  if (!(v >= -1000 && v <= 1000)) return fmt::format("must be between -1000 and 1000 kcal/mol (got {})", num(v));
  return "";
}

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

void require_option(const std::string& option, const std::string& problem) {
  if (!problem.empty()) throw UsageError(option + ": " + problem);
}

std::string quoted_for_message(const std::string& v, std::size_t max_chars) {
  if (v.size() <= max_chars) return "'" + printable(v) + "'";
  return "'" + printable(std::string_view(v).substr(0, max_chars)) + "...'";
}

}  // namespace screen::manifest::rules
