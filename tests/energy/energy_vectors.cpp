#include "energy_vectors.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace screen::energy::testing {

std::vector<Vector> read_vectors(const std::string& name) {
  const char* root = std::getenv("SCREEN_SOURCE_DIR");
  const std::string path = std::string(root ? root : ".") + "/tests/data/energy/" + name;
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot open " << path;
  std::vector<Vector> out;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream f(line);
    Vector v;
    std::string energy;
    std::getline(f, v.sequence, '\t');
    std::getline(f, energy, '\t');
    std::getline(f, v.structure, '\t');
    v.energy = static_cast<int>(std::lround(std::stod(energy) * 100.0));
    out.push_back(v);
  }
  return out;
}

}  // namespace screen::energy::testing
