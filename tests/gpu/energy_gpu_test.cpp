// Duplex energies on the GPU against the CPU fast path (itself tested equal to the reference fold)
// and against miRanda 3.3a's own energies: every vector, random strands of every length the kernel
// takes and beyond (the CPU fallback), several temperatures, batches submitted in turn.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "stages/energy/cpu.hpp"
#include "stages/energy/cuda.hpp"
#include "stages/energy/params.hpp"
#include "stages/energy/reference.hpp"
#include "../energy/energy_vectors.hpp"

namespace screen::energy {
namespace {

using testing::Vector;

std::vector<int> cpu_energies(const std::vector<std::string>& s, const Model& m) { return fold_energies(s, m); }

void expect_equal(const std::vector<std::string>& s, const std::vector<int>& want, const std::vector<int>& got,
                  const char* what) {
  ASSERT_EQ(want.size(), got.size());
  int shown = 0;
  for (std::size_t k = 0; k < s.size(); ++k)
    if (want[k] != got[k] && ++shown <= 10) ADD_FAILURE() << what << " " << k << " '" << s[k] << "': want " << want[k] << ", got " << got[k];
  EXPECT_EQ(shown, 0) << what << ": strings that differ";
}

TEST(EnergyGpu, MirandaDuplexVectors) {
  SCREEN_REQUIRE_GPU();
  const auto v = testing::read_vectors("duplex_folds_30C.tsv");
  ASSERT_GT(v.size(), 20000u);
  std::vector<std::string> s;
  std::vector<int> want;
  for (const auto& x : v) {
    s.push_back(x.sequence);
    want.push_back(x.energy);
  }
  GpuDuplexFolder folder(0);
  const auto got = folder.energies(s, model_at(30.0));
  expect_equal(s, want, got, "miRanda duplex");
  EXPECT_LT(folder.stats().on_cpu, s.size() / 100) << "the GPU should fold nearly all of them";
  EXPECT_GE(folder.stats().launches, 1);
}

TEST(EnergyGpu, RandomFoldVectorsAtTheirTemperatures) {
  SCREEN_REQUIRE_GPU();
  GpuDuplexFolder folder(0);
  for (const auto& [file, celsius] : {std::pair<const char*, double>{"random_folds_30C.tsv", 30.0}, {"random_folds_37C.tsv", 37.0}}) {
    const auto v = testing::read_vectors(file);
    ASSERT_GT(v.size(), 1000u);
    std::vector<std::string> s;
    std::vector<int> want;
    for (const auto& x : v) {
      s.push_back(x.sequence);
      want.push_back(x.energy);
    }
    expect_equal(s, want, folder.energies(s, model_at(celsius)), file);
  }
}

// Random strands: every length from 0 to 160 (over the kernel's 128: the CPU fallback), letters of
// every code in both cases, duplex-like strings (a strand, seven X, its reversed complement with
// mutations), several temperatures.
std::vector<std::string> random_strands(std::mt19937& rng, std::size_t count) {
  static const std::string letters = "ACGUacguTtXNKIn-ACGUACGU";
  std::uniform_int_distribution<int> len(0, 160), pick(0, static_cast<int>(letters.size()) - 1), coin(0, 9);
  std::vector<std::string> out;
  for (std::size_t k = 0; k < count; ++k) {
    std::string s;
    if (k % 2 == 0) {
      const int n = len(rng);
      for (int i = 0; i < n; ++i) s += letters[static_cast<std::size_t>(pick(rng))];
    } else {
      const int n = 8 + len(rng) % 50;
      std::string a;
      for (int i = 0; i < n; ++i) a += "ACGU"[pick(rng) % 4];
      // The reversed complement (G-U wobbles and mutations mixed in): a long helix with loops.
      std::string b;
      for (auto it = a.rbegin(); it != a.rend(); ++it) {
        const char c = *it;
        const char pair = c == 'A' ? 'U' : c == 'C' ? 'G' : c == 'G' ? (coin(rng) < 2 ? 'U' : 'C') : (coin(rng) < 2 ? 'G' : 'A');
        b += coin(rng) == 0 ? "ACGU"[pick(rng) % 4] : pair;
      }
      s = a + "XXXXXXX" + b;
    }
    out.push_back(s);
  }
  return out;
}

TEST(EnergyGpu, RandomStrandsEqualTheCpuPath) {
  SCREEN_REQUIRE_GPU();
  std::mt19937 rng(20261124);
  GpuDuplexFolder folder(0);
  for (const double celsius : {30.0, 37.0, 0.0, 60.0}) {
    const auto s = random_strands(rng, 6000);
    const Model& m = model_at(celsius);
    expect_equal(s, cpu_energies(s, m), folder.energies(s, m), "random strand");
  }
  EXPECT_GT(folder.stats().on_cpu, 0u) << "strands over 128 letters go to the CPU";
  EXPECT_LT(folder.stats().on_cpu, folder.stats().strings / 4);
}

TEST(EnergyGpu, TwoFoldersInTurnAndEmptyBatches) {
  SCREEN_REQUIRE_GPU();
  std::mt19937 rng(7);
  GpuDuplexFolder a(0), b(0);
  const Model& m = model_at(30.0);
  const auto s1 = random_strands(rng, 3000), s2 = random_strands(rng, 3000);
  std::vector<std::uint64_t> o1{0}, o2{0};
  std::string l1, l2;
  for (const auto& x : s1) o1.push_back(o1.back() + x.size()), l1 += x;
  for (const auto& x : s2) o2.push_back(o2.back() + x.size()), l2 += x;
  a.submit(l1.data(), o1.data(), s1.size(), m);
  b.submit(l2.data(), o2.data(), s2.size(), m);  // both in flight
  std::vector<int> g1(s1.size()), g2(s2.size());
  b.collect(g2.data());
  a.collect(g1.data());
  expect_equal(s1, cpu_energies(s1, m), g1, "first folder");
  expect_equal(s2, cpu_energies(s2, m), g2, "second folder");
  EXPECT_TRUE(a.energies({}, m).empty());
  EXPECT_EQ(a.energies({"ACG", ""}, m), (std::vector<int>{0, 0}));
}

// Structures: the tables filled on the GPU, traced on the CPU by the reference's traceback, give the
// reference's own structure and energy, for the vectors and random strands (over 128 letters: the
// CPU reference itself).
TEST(EnergyGpu, StructuresEqualTheReference) {
  SCREEN_REQUIRE_GPU();
  std::mt19937 rng(99);
  for (const auto& [file, celsius] : {std::pair<const char*, double>{"random_folds_30C.tsv", 30.0}, {"random_folds_37C.tsv", 37.0}}) {
    std::vector<std::string> s;
    std::vector<Vector> v = testing::read_vectors(file);
    for (const auto& x : v) s.push_back(x.sequence);
    for (const auto& x : random_strands(rng, 1500)) s.push_back(x);
    const Model& m = model_at(celsius);
    const std::vector<FoldResult> got = fold_structures_gpu(s, m, 0, 0);
    ASSERT_EQ(got.size(), s.size());
    std::vector<FoldResult> want(s.size());
    screen::testing::parallel_for(s.size(), [&](std::size_t k) { want[k] = fold_reference(s[k], m, true); });
    int bad = 0;
    for (std::size_t k = 0; k < s.size(); ++k) {
      if ((got[k].energy != want[k].energy || got[k].structure != want[k].structure) && ++bad <= 5)
        ADD_FAILURE() << file << " " << s[k] << ": want " << want[k].energy << " " << want[k].structure << ", got "
                      << got[k].energy << " " << got[k].structure;
      if (k < v.size() && got[k].energy != v[k].energy && ++bad <= 5) ADD_FAILURE() << "vector " << k << " energy";
    }
    EXPECT_EQ(bad, 0) << file;
  }
}

}  // namespace
}  // namespace screen::energy
