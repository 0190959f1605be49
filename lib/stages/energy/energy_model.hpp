#pragma once
// The duplex free-energy model (docs/energy.md): the Turner 1999 nearest-neighbour parameters with
// the conventions of the Vienna RNA 1.x fold() that miRanda 3.3a calls. One definition of the letter
// codes, pair types and loop energies, shared by the reference fold, the structure evaluator and the
// fast paths (SCREEN_HD: the same source compiles for the CPU and the CUDA kernels).
// Energies are integers in 0.01 kcal/mol.
#include <cmath>
#include <cstdint>

#include "common/host_device.hpp"

namespace screen::energy {

constexpr int kInf = 10000000;  // "impossible"; sums of a few stay far below INT_MAX
constexpr int kMaxLoop = 30;    // the most unpaired letters of a two-pair loop (n1 + n2)
constexpr int kTetraloops = 30;

// Parameters at one temperature (Model::at in params.hpp), flat so that they copy to a GPU as is.
// Indices: pair types 0..7 (0 none, 1 CG, 2 GC, 3 GU, 4 UG, 5 AU, 6 UA, 7 nonstandard; first letter
// 5'), letters 0..4 (0 other, 1 A, 2 C, 3 G, 4 U, after the alias below).
struct Model {
  double temperature = 37.0;  // degrees Celsius
  int stack[8][8];
  int hairpin[kMaxLoop + 1], bulge[kMaxLoop + 1], internal[kMaxLoop + 1];
  int mismatch_interior[8][5][5], mismatch_hairpin[8][5][5], mismatch_multi[8][5][5];
  int dangle5[8][5], dangle3[8][5];
  int int11[8][8][5][5];
  int int21[8][8][5][5][5];
  int int22[8][8][5][5][5][5];
  int ninio[5];
  int max_ninio;
  int ml_base, ml_closing;
  int ml_intern[8];  // includes the terminal AU penalty of types > 2
  int terminal_au;
  double lxc;  // loop extrapolation above kMaxLoop letters (not rounded)
  int tetraloop_count;
  char tetraloop[kTetraloops][7];  // six letters and a NUL, as listed (upper case, U)
  int tetraloop_bonus[kTetraloops];
};

// Letter codes: A 1, C 2, G 3, U and T 4, X 5, K 6, I 7, anything else 0; case ignored.
SCREEN_HD int letter_code(char c) {
  switch (c) {
    case 'A': case 'a': return 1;
    case 'C': case 'c': return 2;
    case 'G': case 'g': return 3;
    case 'U': case 'u': case 'T': case 't': return 4;
    case 'X': case 'x': return 5;
    case 'K': case 'k': return 6;
    case 'I': case 'i': return 7;
    default: return 0;
  }
}

// The letter a code stands for in mismatch and dangle tables: X as G, K as C, I as "other".
SCREEN_HD int letter_alias(int code) {
  constexpr int alias[8] = {0, 1, 2, 3, 4, 3, 2, 0};
  return alias[code & 7];
}

// Pair type of codes (a 5', b 3'): the six Watson-Crick and GU pairs, and X-K, K-X, I-A, A-I, I-U,
// U-I (so that X, N and '-' never pair with a real base).
SCREEN_HD int pair_type(int a, int b) {
  constexpr signed char table[8][8] = {
      {0, 0, 0, 0, 0, 0, 0, 0},  // other
      {0, 0, 0, 0, 5, 0, 0, 5},  // A: AU, A-I
      {0, 0, 0, 1, 0, 0, 0, 0},  // C: CG
      {0, 0, 2, 0, 3, 0, 0, 0},  // G: GC, GU
      {0, 6, 0, 4, 0, 0, 0, 6},  // U: UA, UG, U-I
      {0, 0, 0, 0, 0, 0, 2, 0},  // X: X-K
      {0, 0, 0, 0, 0, 1, 0, 0},  // K: K-X
      {0, 6, 0, 0, 5, 0, 0, 0},  // I: I-A, I-U
  };
  return table[a & 7][b & 7];
}

// The type of a pair read from its other side.
SCREEN_HD int reverse_type(int t) {
  constexpr int rt[8] = {0, 2, 1, 4, 3, 6, 5, 7};
  return rt[t & 7];
}

// The terminal AU (and GU) penalty of a helix end.
SCREEN_HD int terminal_penalty(const Model& m, int t) { return t > 2 ? m.terminal_au : 0; }

// The length term of a hairpin of u unpaired letters: the table up to kMaxLoop, extrapolated
// beyond. (The GPU kernel reads it from a table the host fills with this function, so that device
// and host logarithms cannot round differently.)
SCREEN_HD int hairpin_length_energy(const Model& m, int u) {
  return u <= kMaxLoop ? m.hairpin[u]
                       : m.hairpin[kMaxLoop] + static_cast<int>(m.lxc * log(static_cast<double>(u) / kMaxLoop));
}

// Hairpin of u unpaired letters closed by a pair of type t, given its length term (above); a_in5
// and a_in3 are the aliases of the letters just inside the pair (i+1 and j-1); tetra_bonus the
// bonus of a listed tetraloop (0 when the six letters are not one), found by the caller from the
// letters as written.
SCREEN_HD int hairpin_energy_from_length(const Model& m, int t, int u, int length_energy, int tetra_bonus,
                                         int a_in5, int a_in3) {
  int e = length_energy;
  if (u == 4) e += tetra_bonus;
  if (u == 3)
    e += terminal_penalty(m, t);  // (no triloop bonuses in this set)
  else
    e += m.mismatch_hairpin[t][a_in5][a_in3];
  return e;
}

SCREEN_HD int hairpin_energy(const Model& m, int t, int u, int tetra_bonus, int a_in5, int a_in3) {
  return hairpin_energy_from_length(m, t, u, hairpin_length_energy(m, u), tetra_bonus, a_in5, a_in3);
}

// Loop between an outer pair (i,j) of type t and an inner pair (p,q), i < p < q < j, with
// n1 = p - i - 1 and n2 = j - q - 1 unpaired letters (n1 + n2 <= kMaxLoop); t2 is the inner pair's
// type read from inside the loop (reverse_type of t(p,q)); si, sj, sp, sq the aliases of the letters
// i+1, j-1, p-1, q+1.
SCREEN_HD int interior_energy(const Model& m, int t, int t2, int n1, int n2, int si, int sj, int sp, int sq) {
  const int nl = n1 > n2 ? n1 : n2, ns = n1 > n2 ? n2 : n1;
  if (nl == 0) return m.stack[t][t2];
  if (ns == 0) return m.bulge[nl] + (nl == 1 ? m.stack[t][t2] : terminal_penalty(m, t) + terminal_penalty(m, t2));
  if (ns == 1 && nl == 1) return m.int11[t][t2][si][sj];
  if (ns == 1 && nl == 2) return n1 == 1 ? m.int21[t][t2][si][sq][sj] : m.int21[t2][t][sq][si][sp];
  if (ns == 2 && nl == 2) return m.int22[t][t2][si][sp][sq][sj];
  const int asym = (nl - ns) * m.ninio[2];
  return m.internal[n1 + n2] + (asym < m.max_ninio ? asym : m.max_ninio) + m.mismatch_interior[t][si][sj] +
         m.mismatch_interior[t2][sq][sp];
}

// Tables the fast paths (CPU and GPU) derive from a model, so that a loop's energy is one table
// read: generic_rev[n1][kMaxLoop - n2] is internal[n1 + n2] + the asymmetry term of a generic
// internal loop of n1 x n2 letters (kInf for stacks, bulges, the 1x1, 1x2, 2x1 and 2x2 loops,
// which have tables of their own, and loops over kMaxLoop letters); bulge[n] is bulge[n] for
// n >= 2 (kInf for 0 and 1, which are handled with the stack), bulge_rev[kMaxLoop - n] the same.
// n2 runs reversed so that the inner loops of the fast paths read both operands along memory.
struct LoopTables {
  int generic_rev[kMaxLoop + 1][kMaxLoop + 1];
  int bulge[kMaxLoop + 1], bulge_rev[kMaxLoop + 1];
};

inline LoopTables make_loop_tables(const Model& m) {
  LoopTables lt{};
  for (int n1 = 0; n1 <= kMaxLoop; ++n1)
    for (int n2 = 0; n2 <= kMaxLoop; ++n2) {
      const bool generic = n1 >= 1 && n2 >= 1 && n1 + n2 <= kMaxLoop && !(n1 <= 2 && n2 <= 2);
      const int asym = (n1 > n2 ? n1 - n2 : n2 - n1) * m.ninio[2];
      lt.generic_rev[n1][kMaxLoop - n2] = generic ? m.internal[n1 + n2] + (asym < m.max_ninio ? asym : m.max_ninio) : kInf;
    }
  for (int k = 0; k <= kMaxLoop; ++k) {
    lt.bulge[k] = k >= 2 ? m.bulge[k] : kInf;
    lt.bulge_rev[kMaxLoop - k] = lt.bulge[k];
  }
  return lt;
}

// kcal/mol as printed: two decimals.
inline double kcal(int e) { return static_cast<double>(e) / 100.0; }

}  // namespace screen::energy
