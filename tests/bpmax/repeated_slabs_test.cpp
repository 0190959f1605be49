// The map of repeated query substrings (repeated_slabs.hpp) against brute force, and the property it
// rests on: the reference's slabs of two query intervals with the same bases are equal cell for cell.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "bpmax_test_util.hpp"
#include "stages/bpmax/bpmax_defs.hpp"
#include "stages/bpmax/cpu.hpp"
#include "stages/bpmax/reference.hpp"
#include "stages/bpmax/repeated_slabs.hpp"

namespace screen::bpmax {
namespace {

using test::codes;

// Small alphabets repeat substrings often; N is a letter of its own.
std::string random_query(std::mt19937& rng, int n, const char* alphabet) {
  const int size = static_cast<int>(std::string(alphabet).size());
  std::uniform_int_distribution<int> pick(0, size - 1);
  std::string s;
  for (int k = 0; k < n; ++k) s.push_back(alphabet[pick(rng)]);
  return s;
}

TEST(RepeatedSlabs, EachIntervalMapsToTheFirstWithTheSameBases) {
  std::mt19937 rng(7);
  const char* alphabets[] = {"A", "AC", "ACGU", "ACGUN"};
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 40);
    const int l1 = 1 + static_cast<int>(rng() % n);
    const std::string q = random_query(rng, n, alphabets[trial % 4]);
    const std::vector<std::uint8_t> x = codes(q);
    const RepeatedSlabs r = repeated_slabs(x.data(), n, l1);
    ASSERT_EQ(r.intervals(), query_interval_count(n, l1));
    ASSERT_EQ(r.firsts.size(), static_cast<std::size_t>(l1));
    long long firsts = 0;
    for (int d1 = 0; d1 < l1; ++d1) {
      std::vector<int> expected_firsts;
      for (int i1 = 0; i1 + d1 < n; ++i1) {
        int f = 0;
        while (q.compare(static_cast<std::size_t>(f), static_cast<std::size_t>(d1 + 1), q, static_cast<std::size_t>(i1),
                         static_cast<std::size_t>(d1 + 1)) != 0)
          ++f;
        if (f == i1) expected_firsts.push_back(i1);
        EXPECT_EQ(r.slab[static_cast<std::size_t>(query_interval_index(n, i1, d1))], query_interval_index(n, f, d1))
            << q << " i1 " << i1 << " d1 " << d1;
      }
      EXPECT_EQ(r.firsts[static_cast<std::size_t>(d1)], expected_firsts) << q << " d1 " << d1;
      firsts += static_cast<long long>(expected_firsts.size());
    }
    EXPECT_EQ(r.computed(), firsts);
  }
  // One letter repeated: one slab per length.
  const std::vector<std::uint8_t> a = codes("AAAAAAAAAA");
  EXPECT_EQ(repeated_slabs(a.data(), 10, 10).computed(), 10);
}

TEST(RepeatedSlabs, TheReferenceSlabsOfEqualSubstringsAreEqual) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 12; ++trial) {
    const int n = 6 + static_cast<int>(rng() % 7), m = 6 + static_cast<int>(rng() % 10);
    const std::string q = random_query(rng, n, trial % 2 ? "ACGU" : "GC");
    const std::vector<std::uint8_t> x = codes(q), y = codes(test::random_letters(rng, m));
    Params p;
    p.target_window = trial % 3 == 0 ? 0 : 4 + static_cast<int>(rng() % 4);
    const ReferenceTables t(x.data(), n, y.data(), m, p);
    const Band b = make_band(n, m, p);
    const RepeatedSlabs r = repeated_slabs(x.data(), n, b.l1);
    int repeats = 0;
    for (int d1 = 0; d1 < b.l1; ++d1)
      for (int i1 = 0; i1 + d1 < n; ++i1) {
        const int f = static_cast<int>(r.slab[static_cast<std::size_t>(query_interval_index(n, i1, d1))] -
                                       query_interval_index(n, 0, d1));
        if (f == i1) continue;
        ++repeats;
        for (int i2 = 0; i2 < m; ++i2)
          for (int j2 = i2; j2 < m && j2 - i2 < b.l2; ++j2)
            ASSERT_EQ(t.F(i1, i1 + d1, i2, j2), t.F(f, f + d1, i2, j2)) << q << " (" << i1 << ", " << i1 + d1 << ") as ("
                                                                        << f << ", " << f + d1 << ") at " << i2 << ", " << j2;
      }
    EXPECT_GT(repeats, 0) << q;  // short queries over small alphabets always repeat a letter
  }
}

// The CPU fast path stores a repeat's slab once and reads it for every occurrence: each of its cells
// equals the reference's, on queries that repeat most of their substrings, in 16- and 32-bit cells,
// one and several threads.
TEST(RepeatedSlabs, TheCpuTablesOfRepetitiveQueriesEqualTheReference) {
  std::mt19937 rng(12);
  const std::string queries[] = {"AAAAAAAAAAAAA", "GCGCGCGCGCGCG", "GGUGGUGGUGGUGG", "ACGUACGUAACGU", "UUGCUUGCA"};
  for (int trial = 0; trial < 10; ++trial) {
    const std::string& q = queries[trial % 5];
    const int n = static_cast<int>(q.size()), m = 20 + static_cast<int>(rng() % 60);
    const std::vector<std::uint8_t> x = codes(q), y = codes(test::random_letters(rng, m));
    Params p;
    if (trial >= 5) p.weights = PairWeights{3000, 2000, 1000, 1};  // 32-bit cells
    p.query_window = trial % 3 == 0 ? 7 : 0;
    p.target_window = trial % 2 == 0 ? 16 : 0;
    const ReferenceTables ref(x.data(), n, y.data(), m, p);
    const CpuTables fast(x.data(), n, y.data(), m, p, 1 + trial % 3);
    const Band b = make_band(n, m, p);
    for (int d1 = 0; d1 < b.l1; ++d1)
      for (int i1 = 0; i1 + d1 < n; ++i1)
        for (int i2 = 0; i2 < m; ++i2)
          for (int j2 = i2; j2 < m && j2 - i2 < b.l2; ++j2)
            ASSERT_EQ(fast.F(i1, i1 + d1, i2, j2), ref.F(i1, i1 + d1, i2, j2))
                << q << " trial " << trial << " at (" << i1 << ", " << i1 + d1 << ", " << i2 << ", " << j2 << ")";
  }
}

}  // namespace
}  // namespace screen::bpmax
