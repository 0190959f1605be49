#include "manifest/duration.hpp"

#include <cctype>
#include <vector>

namespace screen::manifest {

namespace {

constexpr long kMaxSeconds = 100L * 365 * 24 * 3600;  // anything longer is surely a typo

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Reads a run of digits at text[pos]; nullopt when there is none or it is absurdly long.
std::optional<long> read_digits(std::string_view text, std::size_t& pos) {
  std::size_t start = pos;
  long value = 0;
  while (pos < text.size() && is_digit(text[pos])) {
    if (pos - start >= 10) return std::nullopt;
    value = value * 10 + (text[pos] - '0');
    ++pos;
  }
  if (pos == start) return std::nullopt;
  return value;
}

// Seconds of a unit and its rank (larger units first); 0 when `unit` is not one.
struct Unit {
  long seconds;
  int rank;
};
Unit unit_of(std::string_view unit) {
  if (unit == "d") return {86400, 4};
  if (unit == "h") return {3600, 3};
  if (unit == "m" || unit == "min") return {60, 2};
  if (unit == "s" || unit == "sec") return {1, 1};
  return {0, 0};
}

}  // namespace

std::optional<long> parse_duration(std::string_view text) {
  std::size_t pos = 0;
  long total = 0;
  int last_rank = 5;
  bool any = false;
  while (true) {
    while (pos < text.size() && text[pos] == ' ') ++pos;
    if (pos == text.size()) break;
    auto value = read_digits(text, pos);
    if (!value) return std::nullopt;
    std::size_t unit_start = pos;
    while (pos < text.size() && std::isalpha(static_cast<unsigned char>(text[pos]))) ++pos;
    Unit u = unit_of(text.substr(unit_start, pos - unit_start));
    if (u.rank == 0 || u.rank >= last_rank) return std::nullopt;
    last_rank = u.rank;
    total += *value * u.seconds;
    if (total > kMaxSeconds) return std::nullopt;
    any = true;
  }
  if (!any || total <= 0) return std::nullopt;
  return total;
}

std::optional<long> parse_time_limit(std::string_view text) {
  std::size_t pos = 0;
  long days = 0;
  bool has_days = false;
  auto dash = text.find('-');
  if (dash != std::string_view::npos) {
    auto d = read_digits(text, pos);
    if (!d || pos != dash) return std::nullopt;
    days = *d;
    has_days = true;
    ++pos;
  }
  std::vector<long> parts;
  while (true) {
    std::size_t start = pos;
    auto v = read_digits(text, pos);
    if (!v) return std::nullopt;
    if (parts.empty() ? pos - start > 6 : pos - start != 2) return std::nullopt;  // MM and SS: two digits
    parts.push_back(*v);
    if (pos == text.size()) break;
    if (text[pos] != ':') return std::nullopt;
    ++pos;
  }
  if (parts.size() != 3) return std::nullopt;
  long hours = parts[0], minutes = parts[1], seconds = parts[2];
  if (minutes >= 60 || seconds >= 60 || (has_days && hours >= 24)) return std::nullopt;
  long total = ((days * 24 + hours) * 60 + minutes) * 60 + seconds;
  if (total <= 0 || total > kMaxSeconds) return std::nullopt;
  return total;
}

std::string format_duration(long seconds) {
  if (seconds <= 0) return "0s";
  std::string out;
  const std::pair<long, const char*> units[] = {{86400, "d"}, {3600, "h"}, {60, "min"}, {1, "s"}};
  for (const auto& [size, name] : units) {
    if (seconds >= size) {
      out += std::to_string(seconds / size) + name;
      seconds %= size;
    }
  }
  return out;
}

}  // namespace screen::manifest
