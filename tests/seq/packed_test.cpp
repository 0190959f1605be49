#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

#include "seq/alphabet.hpp"
#include "seq/packed.hpp"

namespace screen::seq {
namespace {

// Random codes with N runs of random lengths at random places (the start and end included).
std::vector<std::uint8_t> random_codes(std::mt19937_64& rng, std::size_t n) {
  std::vector<std::uint8_t> codes(n);
  for (auto& c : codes) c = static_cast<std::uint8_t>(rng() & 3u);
  if (n == 0) return codes;
  const std::size_t runs = rng() % 6;
  for (std::size_t r = 0; r < runs; ++r) {
    const std::size_t start = (r == 0 && rng() % 2) ? 0 : rng() % n;
    const std::size_t len = 1 + rng() % 70;
    for (std::size_t i = start; i < std::min(n, start + len); ++i) codes[i] = N;
  }
  if (rng() % 3 == 0) codes[n - 1] = N;
  return codes;
}

TEST(Packed, LayoutOfASmallExample) {
  const std::vector<std::uint8_t> codes = {A, C, G, U, N, N, A, N};
  const PackedSequence p = pack(codes);
  EXPECT_EQ(p.length, 8u);
  ASSERT_EQ(p.words.size(), 1u);
  // A=00 C=01 G=10 U=11 from the low bits up; N positions hold 0.
  EXPECT_EQ(p.words[0], 0b11'10'01'00u);
  ASSERT_EQ(p.n_runs.size(), 2u);
  EXPECT_EQ(p.n_runs[0], (NRun{4, 2}));
  EXPECT_EQ(p.n_runs[1], (NRun{7, 1}));
  EXPECT_EQ(p.at(3), U);
  EXPECT_EQ(p.at(4), N);
  EXPECT_EQ(p.at(6), A);
  EXPECT_EQ(p.at(7), N);
}

TEST(Packed, WordBoundaries) {
  std::vector<std::uint8_t> codes(65, U);
  const PackedSequence p = pack(codes);
  ASSERT_EQ(p.words.size(), 3u);
  EXPECT_EQ(p.words[0], ~std::uint64_t(0));
  EXPECT_EQ(p.words[1], ~std::uint64_t(0));
  EXPECT_EQ(p.words[2], 3u);  // one base in the last word, the rest zero
  EXPECT_TRUE(p.n_runs.empty());
  EXPECT_TRUE(pack(nullptr, 0).words.empty());
}

TEST(Packed, RandomRoundTrip) {
  std::mt19937_64 rng(2024);
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t n = trial < 130 ? static_cast<std::size_t>(trial) : rng() % 5000;
    const auto codes = random_codes(rng, n);
    const PackedSequence p = pack(codes);
    ASSERT_EQ(p.length, n);
    ASSERT_EQ(p.words.size(), (n + 31) / 32);
    EXPECT_EQ(unpack(p), codes) << "length " << n;
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(p.at(i), codes[i]) << "position " << i;
    // The runs are sorted, disjoint, never adjacent, and cover exactly the N positions.
    std::size_t n_count = 0;
    for (std::size_t r = 0; r < p.n_runs.size(); ++r) {
      ASSERT_GT(p.n_runs[r].length, 0u);
      if (r > 0) {
        ASSERT_GT(p.n_runs[r].start, p.n_runs[r - 1].start + p.n_runs[r - 1].length);
      }
      n_count += p.n_runs[r].length;
    }
    EXPECT_EQ(n_count, static_cast<std::size_t>(std::count(codes.begin(), codes.end(), N)));
  }
}

TEST(Packed, AllN) {
  const std::vector<std::uint8_t> codes(100, N);
  const PackedSequence p = pack(codes);
  ASSERT_EQ(p.n_runs.size(), 1u);
  EXPECT_EQ(p.n_runs[0], (NRun{0, 100}));
  for (auto w : p.words) EXPECT_EQ(w, 0u);
  EXPECT_EQ(unpack(p), codes);
}

TEST(Packed, RejectsCodesAboveN) {
  const std::vector<std::uint8_t> codes = {A, 5, C};
  EXPECT_THROW(pack(codes), std::invalid_argument);
}

}  // namespace
}  // namespace screen::seq
