#pragma once
// ASCII lower case, for case-insensitive manifest words (units, enum values, suggestions).
#include <cctype>
#include <string>
#include <string_view>

namespace screen::manifest {

inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace screen::manifest
