// The fast CPU path against the reference and miRanda's vectors: every one of the 20,519 duplex
// energies, the random folds at 30 and 37 C, random strands of many lengths and letters (X, N, T,
// lower case, '-'), one folder reused across lengths up and down, and the threaded batch.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "stages/energy/cpu.hpp"
#include "stages/energy/params.hpp"
#include "stages/energy/reference.hpp"
#include "energy_vectors.hpp"

namespace en = screen::energy;

namespace {

// (sequence, energy) of a vector file.
std::vector<std::pair<std::string, int>> read_energies(const std::string& name) {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& v : screen::energy::testing::read_vectors(name)) out.emplace_back(v.sequence, v.energy);
  return out;
}

}  // namespace

TEST(EnergyCpu, EveryDuplexVectorAt30) {
  const en::Model& m = en::model_at(30.0);
  const auto v = read_energies("duplex_folds_30C.tsv");
  ASSERT_EQ(v.size(), 20519u);
  std::vector<std::string> seqs;
  for (const auto& [s, e] : v) seqs.push_back(s);
  const std::vector<int> got = en::fold_energies(seqs, m, 2);
  int bad = 0;
  for (std::size_t k = 0; k < v.size(); ++k)
    if (got[k] != v[k].second && ++bad <= 5) ADD_FAILURE() << v[k].first << ": vector " << v[k].second << ", ours " << got[k];
  EXPECT_EQ(bad, 0);
}

TEST(EnergyCpu, RandomFoldVectorsAt30And37) {
  for (const auto& [file, celsius] : {std::pair<const char*, double>{"random_folds_30C.tsv", 30.0},
                                      std::pair<const char*, double>{"random_folds_37C.tsv", 37.0}}) {
    const en::Model& m = en::model_at(celsius);
    en::DuplexFolder folder;
    int bad = 0;
    for (const auto& [s, e] : read_energies(file))
      if (folder.energy(s, m) != e && ++bad <= 5) ADD_FAILURE() << file << ": " << s << ": vector " << e;
    EXPECT_EQ(bad, 0) << file;
  }
}

TEST(EnergyCpu, RandomStrandsEqualTheReference) {
  // One folder across lengths up and down (its tables are kept and reused), letters of every kind,
  // at three temperatures.
  std::mt19937 rng(4242u);
  static const char mixed[] = "ACGUACGUACGUGGCCAUTXNKIacgut-";
  en::DuplexFolder folder;
  int checked = 0;
  for (double celsius : {30.0, 37.0, 15.5}) {
    const en::Model& m = en::model_at(celsius);
    for (int k = 0; k < 200; ++k) {
      const int n = static_cast<int>(rng() % 3 == 0 ? rng() % 12 : 5 + rng() % 140);
      std::string s;
      for (int c = 0; c < n; ++c) s += mixed[rng() % (sizeof(mixed) - 1)];
      const int ref = en::fold_reference(s, m, false).energy;
      ASSERT_EQ(folder.energy(s, m), ref) << s << " at " << celsius;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 600);
}

TEST(EnergyCpu, BatchIsIndependentOfThreads) {
  std::mt19937 rng(9u);
  std::vector<std::string> seqs;
  for (int k = 0; k < 500; ++k) {
    std::string s;
    for (int c = 0, n = 20 + static_cast<int>(rng() % 60); c < n; ++c) s += "ACGU"[rng() % 4];
    seqs.push_back(s);
  }
  const en::Model& m = en::model_at(30.0);
  const auto one = en::fold_energies(seqs, m, 1);
  EXPECT_EQ(en::fold_energies(seqs, m, 2), one);
  EXPECT_EQ(en::fold_energies(seqs, m, 7), one);
  EXPECT_TRUE(en::fold_energies({}, m, 3).empty());
}

TEST(EnergyCpu, OneFolderFollowsTheModelItIsGiven) {
  // Models built from the table in turn (they may share an address): each energy is its own
  // model's, as the reference gives it.
  en::DuplexFolder folder;
  const std::string s = "GGGAAAUCCCAGCUUAGCCAUUGGGAUAACUGGCUAAGCUAAUCCC";
  for (double celsius : {30.0, 37.0, 5.0, 30.0}) {
    const en::Model m = en::model_from_table(en::builtin_table(), celsius, "built in");
    EXPECT_EQ(folder.energy(s, m), en::fold_reference(s, m, false).energy) << celsius;
  }
}
