#pragma once
// The value of `screen run --shard`: a shard number, or "env" for the SLURM array task id
// (SLURM_ARRAY_TASK_ID), which is how the generated array script runs each task.
#include <cstdint>
#include <string>

namespace screen::cluster {

inline constexpr const char* kArrayTaskVariable = "SLURM_ARRAY_TASK_ID";

// "7" → 7; "env" → the value of SLURM_ARRAY_TASK_ID read through `getenv` (std::getenv unless a
// test passes its own). Throws UsageError naming the option, or the variable and its value, when
// the text is not a number >= 0 or the variable is unset, empty or not a number >= 0.
std::int64_t parse_shard_argument(const std::string& text, const char* (*getenv)(const char*) = nullptr);

}  // namespace screen::cluster
