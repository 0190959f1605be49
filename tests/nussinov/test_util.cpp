#include "tests/nussinov/test_util.hpp"

#include <fmt/format.h>

namespace screen::nussinov::testing {

std::vector<std::uint8_t> codes(const std::string& letters) {
  std::vector<std::uint8_t> out;
  for (char c : letters) {
    switch (c) {
      case 'A': case 'a': out.push_back(0); break;
      case 'C': case 'c': out.push_back(1); break;
      case 'G': case 'g': out.push_back(2); break;
      case 'U': case 'u': case 'T': case 't': out.push_back(3); break;
      default: out.push_back(4); break;
    }
  }
  return out;
}

std::vector<std::uint8_t> random_codes(std::mt19937& rng, int n, int n_every) {
  std::vector<std::uint8_t> s(static_cast<std::size_t>(n));
  std::uniform_int_distribution<int> base(0, 3);
  std::uniform_int_distribution<int> nn(0, n_every > 0 ? n_every - 1 : 0);
  for (auto& c : s) c = static_cast<std::uint8_t>(n_every > 0 && nn(rng) == 0 ? 4 : base(rng));
  return s;
}

std::vector<PairWeights> weight_sets() {
  return {make_pair_weights(1, 1, 1, "unit"), make_pair_weights(3, 2, 1, "3/2/1"),
          make_pair_weights(3, 1, 1.5, "3/1/1.5"), make_pair_weights(1000, 2.5, 0, "1000/2.5/0")};
}

std::string describe(const Params& p) {
  return fmt::format("min_loop={} max_span={} CG={} AU={} GU={} scale={}", p.min_loop, p.max_span, p.weights.cg,
                     p.weights.au, p.weights.gu, p.weights.scale);
}

}  // namespace screen::nussinov::testing
