// SHA-256 as specified in FIPS 180-4 (sections 4.1.2, 4.2.2, 5.1.1, 5.3.3, 6.2). A portable
// implementation, plus the x86 SHA extensions (SHA-NI) where the CPU has them, chosen at run time.
#include "common/sha256.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "common/error.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SCREEN_SHA256_X86 1
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace screen {
namespace {

// FIPS 180-4, 4.2.2: first 32 bits of the fractional parts of the cube roots of the first 64 primes.
alignas(16) constexpr std::uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

// FIPS 180-4, 5.3.3: initial hash value.
constexpr std::uint32_t kInitial[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

inline std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

inline std::uint32_t load_be32(const std::uint8_t* p) {
  return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) | std::uint32_t(p[3]);
}

void compress_portable(std::uint32_t* state, const std::uint8_t* blocks, std::size_t nblocks) {
  for (std::size_t b = 0; b < nblocks; ++b, blocks += 64) {
    std::uint32_t w[64];
    for (int t = 0; t < 16; ++t) w[t] = load_be32(blocks + 4 * t);
    for (int t = 16; t < 64; ++t) {
      const std::uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
      const std::uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
      w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    std::uint32_t a = state[0], b2 = state[1], c = state[2], d = state[3];
    std::uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int t = 0; t < 64; ++t) {
      const std::uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const std::uint32_t ch = (e & f) ^ (~e & g);
      const std::uint32_t t1 = h + S1 + ch + kRound[t] + w[t];
      const std::uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const std::uint32_t maj = (a & b2) ^ (a & c) ^ (b2 & c);
      const std::uint32_t t2 = S0 + maj;
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b2;
      b2 = a;
      a = t1 + t2;
    }
    state[0] += a;
    state[1] += b2;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
  }
}

#ifdef SCREEN_SHA256_X86
// The same compression with the SHA extensions. The instructions keep the working variables as two
// vectors, (A,B,E,F) and (C,D,G,H), and do two rounds per sha256rnds2.
__attribute__((target("sha,sse4.1,ssse3"))) void compress_shani(std::uint32_t* state, const std::uint8_t* blocks,
                                                                  std::size_t nblocks) {
  const __m128i byteswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  __m128i dcba = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state));      // lanes A B C D
  __m128i hgfe = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state + 4));  // lanes E F G H
  const __m128i badc = _mm_shuffle_epi32(dcba, 0xB1);                            // lanes B A D C
  const __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);                            // lanes H G F E
  __m128i abef = _mm_alignr_epi8(badc, efgh, 8);                                 // lanes F E B A
  __m128i cdgh = _mm_blend_epi16(efgh, badc, 0xF0);                              // lanes H G D C

  for (std::size_t b = 0; b < nblocks; ++b, blocks += 64) {
    const __m128i abef_in = abef;
    const __m128i cdgh_in = cdgh;
    __m128i w[4];
#pragma GCC unroll 16
    for (int g = 0; g < 16; ++g) {
      __m128i cur;
      if (g < 4) {
        cur = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blocks + 16 * g)), byteswap);
      } else {
        // w[t] = s1(w[t-2]) + w[t-7] + s0(w[t-15]) + w[t-16], four words at a time.
        const __m128i prev1 = w[(g - 1) & 3], prev2 = w[(g - 2) & 3];
        __m128i x = _mm_sha256msg1_epu32(w[(g - 4) & 3], w[(g - 3) & 3]);
        x = _mm_add_epi32(x, _mm_alignr_epi8(prev1, prev2, 4));
        cur = _mm_sha256msg2_epu32(x, prev1);
      }
      w[g & 3] = cur;
      __m128i msg = _mm_add_epi32(cur, _mm_load_si128(reinterpret_cast<const __m128i*>(kRound + 4 * g)));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, msg);
      msg = _mm_shuffle_epi32(msg, 0x0E);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, msg);
    }
    abef = _mm_add_epi32(abef, abef_in);
    cdgh = _mm_add_epi32(cdgh, cdgh_in);
  }

  const __m128i feba = _mm_shuffle_epi32(abef, 0x1B);  // lanes A B E F
  const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);  // lanes G H C D
  dcba = _mm_blend_epi16(feba, dchg, 0xF0);            // lanes A B C D
  hgfe = _mm_alignr_epi8(dchg, feba, 8);               // lanes E F G H
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state), dcba);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state + 4), hgfe);
}

bool cpu_has_shani() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
  const bool ssse3 = (ecx & (1u << 9)) != 0, sse41 = (ecx & (1u << 19)) != 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  return ssse3 && sse41 && (ebx & (1u << 29)) != 0;
}
#else
bool cpu_has_shani() { return false; }
#endif

bool& hardware_enabled() {
  static bool enabled = cpu_has_shani();
  return enabled;
}

}  // namespace

namespace detail {
bool sha256_hardware_available() { return cpu_has_shani(); }
void sha256_use_hardware(bool use) { hardware_enabled() = use && cpu_has_shani(); }
bool sha256_using_hardware() { return hardware_enabled(); }
}  // namespace detail

Sha256::Sha256() { reset(); }

void Sha256::reset() {
  for (int i = 0; i < 8; ++i) state_[i] = kInitial[i];
  buffered_ = 0;
  total_bytes_ = 0;
}

void Sha256::compress(const std::uint8_t* blocks, std::size_t nblocks) {
#ifdef SCREEN_SHA256_X86
  if (hardware_enabled()) {
    compress_shani(state_.data(), blocks, nblocks);
    return;
  }
#endif
  compress_portable(state_.data(), blocks, nblocks);
}

void Sha256::update(const void* data, std::size_t len) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  total_bytes_ += len;
  if (buffered_ > 0) {
    const std::size_t take = std::min(len, buffer_.size() - buffered_);
    std::memcpy(buffer_.data() + buffered_, p, take);
    buffered_ += take;
    p += take;
    len -= take;
    if (buffered_ < buffer_.size()) return;
    compress(buffer_.data(), 1);
    buffered_ = 0;
  }
  const std::size_t whole = len / 64;
  if (whole > 0) compress(p, whole);
  p += whole * 64;
  len -= whole * 64;
  if (len > 0) std::memcpy(buffer_.data(), p, len);
  buffered_ = len;
}

std::array<std::uint8_t, 32> Sha256::digest() {
  // FIPS 180-4, 5.1.1: append 1 bit, zeros to 448 mod 512 bits, then the length in bits (64-bit BE).
  const std::uint64_t bit_length = total_bytes_ * 8;
  std::uint8_t pad[72] = {0x80};
  const std::size_t pad_len = (buffered_ < 56 ? 56 - buffered_ : 120 - buffered_);
  for (int i = 0; i < 8; ++i) pad[pad_len + i] = static_cast<std::uint8_t>(bit_length >> (56 - 8 * i));
  update(pad, pad_len + 8);
  std::array<std::uint8_t, 32> out{};
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) out[4 * i + j] = static_cast<std::uint8_t>(state_[i] >> (24 - 8 * j));
  reset();
  return out;
}

std::string Sha256::hex_digest() {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto bytes = digest();
  std::string hex(64, '0');
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    hex[2 * i] = kHex[bytes[i] >> 4];
    hex[2 * i + 1] = kHex[bytes[i] & 15];
  }
  return hex;
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
