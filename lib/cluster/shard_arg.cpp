#include "cluster/shard_arg.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include "common/error.hpp"

namespace screen::cluster {

namespace {

// A decimal number >= 0 that fits an int64; false otherwise.
bool parse_count(const std::string& s, std::int64_t& value) {
  if (s.empty() || s.size() > 18) return false;
  value = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  return true;
}

const char* std_getenv(const char* name) { return std::getenv(name); }

}  // namespace

std::int64_t parse_shard_argument(const std::string& text, const char* (*getenv)(const char*)) {
  std::int64_t k = 0;
  if (text != "env") {
    if (!parse_count(text, k))
      throw UsageError(fmt::format("--shard {}: expected a shard number >= 0, or `env` for ${}", text,
                                   kArrayTaskVariable));
    return k;
  }
  const char* value = (getenv ? getenv : std_getenv)(kArrayTaskVariable);
  if (!value || !*value)
    throw UsageError(fmt::format("--shard env: {} is not set; `--shard env` is for SLURM array tasks (see "
                                 "`screen submit`); give the shard number instead",
                                 kArrayTaskVariable));
  if (!parse_count(value, k))
    throw UsageError(fmt::format("--shard env: {}='{}' is not a shard number >= 0", kArrayTaskVariable, value));
  return k;
}

}  // namespace screen::cluster
