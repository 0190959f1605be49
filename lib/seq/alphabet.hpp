#pragma once
// The nucleotide codes every stage works on: A=0, C=1, G=2, U=3 (T is read as U), N=4 (N and the
// IUPAC ambiguity codes). Codes 0..3 fit in 2 bits; N is carried beside them (see packed.hpp).
#include <cstdint>

#include "common/host_device.hpp"

namespace screen::seq {

enum Base : std::uint8_t { A = 0, C = 1, G = 2, U = 3, N = 4 };
constexpr int kAlphabetSize = 5;

// 'A','C','G','U' for 0..3, 'N' for 4.
SCREEN_HD constexpr char base_letter(std::uint8_t code) {
  return code == A ? 'A' : code == C ? 'C' : code == G ? 'G' : code == U ? 'U' : 'N';
}

// Watson-Crick complement for codes 0..3; N stays N.
SCREEN_HD constexpr std::uint8_t complement(std::uint8_t code) { return code < 4 ? std::uint8_t(3 - code) : std::uint8_t(N); }

}  // namespace screen::seq
