#pragma once
// Durations as manifests write them: "30s", "5min", "2h", "1h30m", "1d12h" -> seconds; and SLURM
// time limits "HH:MM:SS" or "D-HH:MM:SS" -> seconds.
#include <optional>
#include <string>
#include <string_view>

namespace screen::manifest {

// One or more <integer><unit> parts, units s|sec, m|min, h, d, each at most once and from the
// largest unit down ("1h30m", "1h 30m"). No unit, another unit, or a total of 0 -> nullopt.
std::optional<long> parse_duration(std::string_view text);

// "HH:MM:SS" (any number of hours) or "D-HH:MM:SS" (hours < 24), minutes and seconds < 60,
// total > 0 -> seconds; anything else -> nullopt.
std::optional<long> parse_time_limit(std::string_view text);

// 300 -> "5min", 5400 -> "1h30min", 45 -> "45s", 90061 -> "1d1h1min1s".
std::string format_duration(long seconds);

}  // namespace screen::manifest
