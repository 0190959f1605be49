#pragma once
// SHA-256 (FIPS 180-4), used to fingerprint input files so a resumed job can tell whether its
// inputs changed. Streaming: update() any number of times, then hex_digest() once.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace screen {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t len);
  void update(std::string_view text) { update(text.data(), text.size()); }
  // Finishes the hash and returns 64 lowercase hex digits; the object is then reset for reuse.
  std::string hex_digest();
  std::array<std::uint8_t, 32> digest();  // the same, as bytes

 private:
  void reset();
  void compress(const std::uint8_t* blocks, std::size_t nblocks);

  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_;
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
};

// Hex SHA-256 of `text`.
std::string sha256_hex(std::string_view text);

// Hex SHA-256 of the bytes of the file at `path` as stored; throws InputError (path and strerror)
// when the file cannot be opened or read.
std::string sha256_file(const std::string& path);

}  // namespace screen

namespace screen::detail {
// The SHA extensions path is used where the CPU has it; tests switch it off to check the portable one.
bool sha256_hardware_available();
void sha256_use_hardware(bool use);
bool sha256_using_hardware();
}  // namespace screen::detail
