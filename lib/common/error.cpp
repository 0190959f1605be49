#include "common/error.hpp"

#include <fmt/format.h>

namespace screen {

std::string located(const std::string& file, long line, long column, const std::string& message) {
  if (line <= 0) return fmt::format("{}: {}", file, message);
  if (column <= 0) return fmt::format("{}:{}: {}", file, line, message);
  return fmt::format("{}:{}:{}: {}", file, line, column, message);
}

}  // namespace screen
