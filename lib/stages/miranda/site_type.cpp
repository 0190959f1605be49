#include "stages/miranda/site_type.hpp"

#include <array>

namespace screen::miranda {

namespace {

char upper_rna(char c) {
  if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return c == 'T' ? 'U' : c;
}

// Watson-Crick only: G:U wobbles do not count for a site type.
bool watson_crick(char m, char t) {
  m = upper_rna(m);
  t = upper_rna(t);
  return (m == 'A' && t == 'U') || (m == 'U' && t == 'A') || (m == 'G' && t == 'C') || (m == 'C' && t == 'G');
}

}  // namespace

SiteType site_type(const std::string& query_line, const std::string& target_line) {
  // Positions 1..8 from the right: each position's column; a query '-' column between two positions
  // (an extra target letter) breaks their contiguity.
  constexpr int kPositions = 8;
  std::array<char, kPositions + 1> m{}, t{};
  std::array<bool, kPositions + 1> joined{};  // joined[p]: no gap column between positions p-1 and p
  int pos = 0;
  bool gap_since_last = false;
  for (std::size_t k = query_line.size(); k-- > 0 && pos < kPositions;) {
    if (query_line[k] == '-') {
      gap_since_last = true;
      continue;
    }
    ++pos;
    m[static_cast<std::size_t>(pos)] = query_line[k];
    t[static_cast<std::size_t>(pos)] = k < target_line.size() ? target_line[k] : '-';
    joined[static_cast<std::size_t>(pos)] = !gap_since_last;
    gap_since_last = false;
  }
  if (pos < kPositions) return SiteType::none;  // a microRNA shorter than eight letters
  // Positions a..b paired Watson-Crick, contiguous on the target.
  const auto paired = [&](int a, int b) {
    for (int p = a; p <= b; ++p) {
      if (!watson_crick(m[static_cast<std::size_t>(p)], t[static_cast<std::size_t>(p)])) return false;
      if (p > a && !joined[static_cast<std::size_t>(p)]) return false;
    }
    return true;
  };
  const bool a1 = upper_rna(t[1]) == 'A' && joined[2];
  if (paired(2, 8)) return a1 ? SiteType::eight_mer : SiteType::seven_mer_m8;
  if (paired(2, 7)) return a1 ? SiteType::seven_mer_a1 : SiteType::six_mer;
  if (paired(3, 8)) return SiteType::offset_6mer;
  return SiteType::none;
}

const char* site_type_name(SiteType t) {
  switch (t) {
    case SiteType::eight_mer: return "8mer";
    case SiteType::seven_mer_m8: return "7mer-m8";
    case SiteType::seven_mer_a1: return "7mer-A1";
    case SiteType::six_mer: return "6mer";
    case SiteType::offset_6mer: return "offset-6mer";
    default: return "none";
  }
}

}  // namespace screen::miranda
