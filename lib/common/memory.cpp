#include "common/memory.hpp"

#include <unistd.h>

#include <cmath>

#include <fmt/format.h>

#include "common/error.hpp"

namespace screen {

std::uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
}

std::string human_bytes(std::uint64_t bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 6) {
    v /= 1024;
    ++u;
  }
  if (u == 0) return fmt::format("{} B", bytes);
  if (std::fabs(v - std::round(v)) < 0.05) return fmt::format("{:.0f} {}", v, units[u]);
  return fmt::format("{:.1f} {}", v, units[u]);
}

void require_memory(const std::string& what, std::uint64_t needed, std::uint64_t available) {
  if (available == 0 || needed <= available) return;
  throw ResourceError(fmt::format("{} needs {} of memory for its tables; this machine has {} of RAM", what,
                                  human_bytes(needed), human_bytes(available)));
}

}  // namespace screen
