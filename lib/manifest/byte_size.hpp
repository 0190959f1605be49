#pragma once
// Memory sizes as manifests write them: "64GiB", "512 MiB", "100GB", "2TiB", "4096" (bytes).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace screen::manifest {

// An integer or decimal number, optionally followed (after optional spaces) by one unit:
// B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024); case-insensitive.
// A total of 0, a negative number, another unit or more than 2^62 bytes -> nullopt.
std::optional<std::uint64_t> parse_byte_size(std::string_view text);

// 68719476736 -> "64 GiB", 1500000000 -> "1.4 GiB", 4096 -> "4 KiB", 100 -> "100 B".
std::string format_byte_size(std::uint64_t bytes);

}  // namespace screen::manifest
