#pragma once
// miRanda 3.3a's energy vectors (tests/data/energy/*.tsv): sequence <TAB> energy (kcal/mol) [<TAB>
// structure], a header line first. One reader for every energy test.
#include <string>
#include <vector>

namespace screen::energy::testing {

struct Vector {
  std::string sequence;
  int energy = 0;         // 0.01 kcal/mol
  std::string structure;  // empty in the duplex file
};

std::vector<Vector> read_vectors(const std::string& name);

}  // namespace screen::energy::testing
