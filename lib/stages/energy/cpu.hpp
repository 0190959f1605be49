#pragma once
// The fast CPU path of the duplex energy (docs/energy.md): the same recurrences as the reference,
// energies only, with D kept in a table instead of recomputed, the pair types precomputed, and the
// tables kept between calls (no allocation per duplex once a thread has folded its longest one).
// Tested equal to fold_reference on miRanda's vectors and on random strands.
#include <cstdint>
#include <string>
#include <vector>

#include "stages/energy/energy_model.hpp"

namespace screen::energy {

class DuplexFolder {
 public:
  // The MFE of `letters` (as written: the tetraloop bonus reads case and T), 0.01 kcal/mol.
  int energy(const std::string& letters, const Model& m);

 private:
  void reserve(int n);
  int cap_ = -1;
  std::vector<std::int8_t> type_;  // (n+2)^2: t(i,j)
  std::vector<int> code_, alias_;
  std::vector<int> C_, M_, D_, F_;
  std::vector<int> Cmi_;  // C(p,q) + the mismatch of the loop outside (p,q), as an inner pair
  std::vector<int> Mt_;   // M transposed: Mt(j, i) = M(i, j)
  std::vector<int> Cau_, CauT_;  // C(p,q) + the terminal AU penalty of (p,q), and its transpose
  // The loop tables (energy_model.hpp) and the model values they were made from (rebuilt when a
  // model's values differ, not by its address, which a later model may reuse).
  LoopTables loops_{};
  bool loop_made_ = false;
  int loop_src_internal_[kMaxLoop + 1] = {}, loop_src_bulge_[kMaxLoop + 1] = {};
  int loop_src_ninio_ = 0, loop_src_max_ninio_ = 0;
};

// Energies of many strings on `threads` threads (0: OpenMP's default), in input order.
std::vector<int> fold_energies(const std::vector<std::string>& letters, const Model& m, int threads = 0);

// A folder for the calling thread (the miRanda hit collector folds each hit's duplex with it).
DuplexFolder& thread_duplex_folder();

}  // namespace screen::energy
