#pragma once
// SHA-256 through OpenSSL's libcrypto (EVP; it picks the CPU's SHA extensions itself), used to
// fingerprint input files, parts and checkpoints so that a resumed job can tell whether anything
// changed. Streaming: update() any number of times, then hex_digest() once.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace screen {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256& other);
  Sha256& operator=(const Sha256& other);
  Sha256(Sha256&&) noexcept;
  Sha256& operator=(Sha256&&) noexcept;

  void update(const void* data, std::size_t len);
  void update(std::string_view text) { update(text.data(), text.size()); }
  // Finishes the hash and returns 64 lowercase hex digits; the object is then reset for reuse.
  std::string hex_digest();
  std::array<std::uint8_t, 32> digest();  // the same, as bytes

 private:
  struct Context;  // the EVP digest context
  std::unique_ptr<Context> ctx_;
};

// Hex SHA-256 of `text`.
std::string sha256_hex(std::string_view text);

// Hex SHA-256 of the bytes of the file at `path` as stored; throws InputError (path and strerror)
// when the file cannot be opened or read.
std::string sha256_file(const std::string& path);

}  // namespace screen
