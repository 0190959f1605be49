#pragma once
// Helpers of the Nussinov tests: an independent letter encoder and random sequences/parameters.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "stages/nussinov/nussinov_defs.hpp"

namespace screen::nussinov::testing {

// A C G U (T) -> 0..3, anything else -> N (4). Independent of lib/seq on purpose.
std::vector<std::uint8_t> codes(const std::string& letters);

// Uniform over A C G U, with about one N per `n_every` bases when n_every > 0.
std::vector<std::uint8_t> random_codes(std::mt19937& rng, int n, int n_every = 0);

// The weight sets the tests sweep: unit; CG=3,AU=2,GU=1; CG=3,AU=1,GU=1.5 (half units);
// CG=1000,AU=2.5,GU=0 (half units, forces 32-bit cells past 32 nt).
std::vector<PairWeights> weight_sets();

std::string describe(const Params& p);

}  // namespace screen::nussinov::testing
