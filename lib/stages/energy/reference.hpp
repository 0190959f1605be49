#pragma once
// The plain reference of the duplex energy model (docs/energy.md): the minimum free energy fold of
// one strand by the recurrences C, M, D and F as written there, with a traceback, and the energy of
// a given structure (the test oracle: every traceback structure re-evaluates to its MFE).
// O(n^3) time and O(n^2) memory; meant to be obviously right, not fast.
#include <functional>
#include <string>

#include "stages/energy/energy_model.hpp"

namespace screen::energy {

struct FoldResult {
  int energy = 0;         // 0.01 kcal/mol
  std::string structure;  // dot-bracket, one MFE structure (empty when not asked for)
};

// Letters as written: case and T are kept, because a tetraloop's bonus applies only to the six
// letters exactly as listed (upper case, U); folding otherwise ignores case and reads T as U.
FoldResult fold_reference(const std::string& letters, const Model& m, bool with_structure = true);

// One MFE structure from tables a fast path filled (the GPU kernel), by the reference's own
// traceback, so that it is the structure fold_reference gives when the tables equal its own: c(i, j)
// and mm(i, j) for 1 <= i, i + 4 <= j <= n (kInf where there is no structure), f(j) for 0 <= j <= n.
using CellValue = std::function<int(int, int)>;
std::string traceback_with_tables(const std::string& letters, const Model& m, const CellValue& c, const CellValue& mm,
                                  const std::function<int(int)>& f);

// The bonus of the hairpin whose six letters (closing pair included) start at `six`: the listed
// tetraloop's, or 0.
int tetraloop_bonus(const Model& m, const char* six);

// The energy of `structure` (dot-bracket) on `letters` under the model, dangles chosen as the fold
// may choose them (each unpaired letter next to a helix dangles on at most one). Throws InputError
// for an unbalanced structure, a length mismatch, a pair the model does not allow, or a hairpin
// shorter than three letters.
int evaluate_structure(const std::string& letters, const std::string& structure, const Model& m);

}  // namespace screen::energy
