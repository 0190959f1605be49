#include "manifest/byte_size.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "common/memory.hpp"
#include "manifest/ascii_lower.hpp"

namespace screen::manifest {

namespace {

// Bytes per unit; 0 when `unit` is not one.
double unit_bytes(const std::string& unit) {
  if (unit.empty() || unit == "b") return 1;
  if (unit == "kb") return 1e3;
  if (unit == "mb") return 1e6;
  if (unit == "gb") return 1e9;
  if (unit == "tb") return 1e12;
  if (unit == "kib") return 1024.0;
  if (unit == "mib") return 1024.0 * 1024;
  if (unit == "gib") return 1024.0 * 1024 * 1024;
  if (unit == "tib") return 1024.0 * 1024 * 1024 * 1024;
  return 0;
}

}  // namespace

std::optional<std::uint64_t> parse_byte_size(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size() && text[pos] == ' ') ++pos;
  const std::size_t start = pos;
  bool digits = false, dot = false;
  while (pos < text.size() && (std::isdigit(static_cast<unsigned char>(text[pos])) || (text[pos] == '.' && !dot))) {
    if (text[pos] == '.') dot = true;
    else digits = true;
    ++pos;
  }
  if (!digits || pos - start > 20) return std::nullopt;
  const double value = std::strtod(std::string(text.substr(start, pos - start)).c_str(), nullptr);
  while (pos < text.size() && text[pos] == ' ') ++pos;
  std::size_t end = text.size();
  while (end > pos && text[end - 1] == ' ') --end;
  const std::string unit = ascii_lower(text.substr(pos, end - pos));
  for (char c : unit)
    if (!std::isalpha(static_cast<unsigned char>(c))) return std::nullopt;
  const double per = unit_bytes(unit);
  if (per == 0) return std::nullopt;
  const double bytes = std::floor(value * per);
  if (!(bytes >= 1) || bytes > 4.6e18) return std::nullopt;
  return static_cast<std::uint64_t>(bytes);
}

std::string format_byte_size(std::uint64_t bytes) { return human_bytes(bytes); }

}  // namespace screen::manifest
