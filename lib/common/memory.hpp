#pragma once
// Up-front memory checks of the single-shot commands (`screen fold`, `screen interact`): a record
// whose dynamic-programming tables cannot fit in this machine's memory is refused with a message
// naming it, before anything is allocated (rather than dying of std::bad_alloc, or of the OOM killer).
#include <cstdint>
#include <string>

namespace screen {

// Physical memory of this machine in bytes (sysconf); 0 when unknown.
std::uint64_t physical_memory_bytes();

// "512 B", "1.5 KiB", ..., "8.9 PiB", "1024 EiB": binary units, one decimal unless whole.
std::string human_bytes(std::uint64_t bytes);

// Throws ResourceError "<what> needs <needed> of memory for its tables; this machine has <ram> of
// RAM" when `needed` exceeds `available` (default: physical_memory_bytes(); 0 = unknown, no check).
void require_memory(const std::string& what, std::uint64_t needed, std::uint64_t available = physical_memory_bytes());

}  // namespace screen
