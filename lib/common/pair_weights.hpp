#pragma once
// Base-pair weights shared by the Nussinov and BPMax stages (CPU and GPU alike).
// Weights are non-negative multiples of 0.5. They are kept as integers in units of 1/scale,
// scale = 1 when every weight is whole and 2 otherwise, so all arithmetic is exact integer math;
// a score s in those units is s / scale in the user's units.
#include <cstdint>
#include <string>

#include "common/host_device.hpp"
#include "seq/alphabet.hpp"

namespace screen {

struct PairWeights {
  int cg = 1;      // C-G and G-C, in units of 1/scale
  int au = 1;      // A-U and U-A
  int gu = 1;      // G-U and U-G
  int scale = 1;   // 1 or 2
};

// The rule for user weights, shared by the manifest and `--weights` (manifest/param_rules.hpp):
// each 0 .. 1000 and a multiple of 0.5. Returns the problem, or "" when the value is accepted.
std::string pair_weight_problem(double v);
// Each weight as above, and at least one of them > 0 (else nothing pairs); "CG must be ..." names the pair.
std::string pair_weights_problem(double cg, double au, double gu);

// From user values (checked by pair_weights_problem; throws UsageError "what: problem").
PairWeights make_pair_weights(double cg, double au, double gu, const std::string& what);

// Parses "CG=3,AU=2,GU=1" (any order; omitted pairs keep `defaults`, given in user units).
PairWeights parse_pair_weights(const std::string& text, double default_cg, double default_au, double default_gu);

// "3", "45.5": a score in units of 1/scale written in user units, exactly.
std::string format_score(long long score, int scale);

// 5x5 lookup of the weight of pairing code a with code b (codes of seq::Base; N pairs with nothing).
struct PairTable {
  std::int16_t w[seq::kAlphabetSize * seq::kAlphabetSize];
  SCREEN_HD int at(std::uint8_t a, std::uint8_t b) const { return w[a * seq::kAlphabetSize + b]; }
  SCREEN_HD bool unit() const;  // every nonzero entry is 1
};

SCREEN_HD constexpr PairTable make_pair_table(const PairWeights& pw) {
  PairTable t{};
  for (int k = 0; k < seq::kAlphabetSize * seq::kAlphabetSize; ++k) t.w[k] = 0;
  auto set = [&t](int a, int b, int v) {
    t.w[a * seq::kAlphabetSize + b] = static_cast<std::int16_t>(v);
    t.w[b * seq::kAlphabetSize + a] = static_cast<std::int16_t>(v);
  };
  set(seq::C, seq::G, pw.cg);
  set(seq::A, seq::U, pw.au);
  set(seq::G, seq::U, pw.gu);
  return t;
}

SCREEN_HD bool PairTable::unit() const {
  for (int k = 0; k < seq::kAlphabetSize * seq::kAlphabetSize; ++k)
    if (w[k] != 0 && w[k] != 1) return false;
  return true;
}

}  // namespace screen
