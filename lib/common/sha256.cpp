#include "common/sha256.hpp"

#include <openssl/evp.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "common/error.hpp"

namespace screen {

struct Sha256::Context {
  EVP_MD_CTX* md = nullptr;
  Context() : md(EVP_MD_CTX_new()) {
    if (!md || EVP_DigestInit_ex(md, EVP_sha256(), nullptr) != 1) {
      EVP_MD_CTX_free(md);
      throw Error(ExitCode::internal, "SHA-256: libcrypto could not start a digest");
    }
  }
  ~Context() { EVP_MD_CTX_free(md); }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
};

Sha256::Sha256() : ctx_(std::make_unique<Context>()) {}
Sha256::~Sha256() = default;
Sha256::Sha256(Sha256&&) noexcept = default;
Sha256& Sha256::operator=(Sha256&&) noexcept = default;

Sha256::Sha256(const Sha256& other) : ctx_(std::make_unique<Context>()) {
  if (EVP_MD_CTX_copy_ex(ctx_->md, other.ctx_->md) != 1)
    throw Error(ExitCode::internal, "SHA-256: libcrypto could not copy a digest");
}

Sha256& Sha256::operator=(const Sha256& other) {
  if (this != &other) *this = Sha256(other);
  return *this;
}

void Sha256::update(const void* data, std::size_t len) {
  if (len > 0 && EVP_DigestUpdate(ctx_->md, data, len) != 1)
    throw Error(ExitCode::internal, "SHA-256: libcrypto could not update a digest");
}

std::array<std::uint8_t, 32> Sha256::digest() {
  std::array<std::uint8_t, 32> out{};
  unsigned int n = 0;
  if (EVP_DigestFinal_ex(ctx_->md, out.data(), &n) != 1 || n != out.size() ||
      EVP_DigestInit_ex(ctx_->md, EVP_sha256(), nullptr) != 1)
    throw Error(ExitCode::internal, "SHA-256: libcrypto could not finish a digest");
  return out;
}

std::string Sha256::hex_digest() {
  static const char* const kHex = "0123456789abcdef";
  std::string s;
  s.reserve(64);
  for (std::uint8_t b : digest()) {
    s.push_back(kHex[b >> 4]);
    s.push_back(kHex[b & 15]);
  }
  return s;
}

std::string sha256_hex(std::string_view text) {
  Sha256 h;
  h.update(text);
  return h.hex_digest();
}

std::string sha256_file(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw InputError(path + ": cannot open: " + std::strerror(errno));
  std::vector<char> buf(1 << 20);
  Sha256 h;
  for (;;) {
    const std::size_t n = std::fread(buf.data(), 1, buf.size(), f.get());
    if (n > 0) h.update(buf.data(), n);
    if (n < buf.size()) {
      if (std::ferror(f.get())) throw InputError(path + ": cannot read: " + std::strerror(errno));
      break;
    }
  }
  return h.hex_digest();
}

}  // namespace screen
