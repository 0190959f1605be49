#pragma once
// The 256-entry table the FASTA reader looks every sequence byte up in: a nucleotide code
// (alphabet.hpp) for letters it accepts, otherwise the class of the byte, so the hot loop is one
// load per byte and a single test for "anything unusual".
#include <array>
#include <cstdint>

#include "seq/alphabet.hpp"

namespace screen::seq::detail {

// Values >= kNotACode are not codes. Their bits say why.
constexpr std::uint8_t kNotACode = 8;
constexpr std::uint8_t kStrippable = 8;   // gap '-' '.' or digit: dropped with strip_invalid
constexpr std::uint8_t kSpace = 64;       // white space: dropped with skip_whitespace or strip_invalid
constexpr std::uint8_t kMaskX = 16;       // 'X'/'x': N with mask_x, invalid otherwise
constexpr std::uint8_t kInvalid = 32;     // anything else

constexpr std::array<std::uint8_t, 256> make_letter_table() {
  std::array<std::uint8_t, 256> t{};
  for (auto& v : t) v = kInvalid;
  const char* n_letters = "NRYKMSWBDHV";
  for (const char* p = n_letters; *p; ++p) {
    t[static_cast<unsigned char>(*p)] = N;
    t[static_cast<unsigned char>(*p - 'A' + 'a')] = N;
  }
  t['A'] = t['a'] = A;
  t['C'] = t['c'] = C;
  t['G'] = t['g'] = G;
  t['U'] = t['u'] = U;
  t['T'] = t['t'] = U;
  t['X'] = t['x'] = kMaskX;
  t['-'] = t['.'] = kStrippable;
  for (char d = '0'; d <= '9'; ++d) t[static_cast<unsigned char>(d)] = kStrippable;
  t['\r'] = kStrippable;  // a '\r' not ending a line
  t[' '] = t['\t'] = t['\v'] = t['\f'] = kSpace;
  return t;
}

inline constexpr std::array<std::uint8_t, 256> kLetterTable = make_letter_table();

}  // namespace screen::seq::detail
