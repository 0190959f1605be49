// The duplex energy model's reference: the parameter table and its rescaling, the fold against
// brute force (every structure of short random strands evaluated), and the fold and the evaluator
// against miRanda 3.3a's own Vienna 1.x energies (tests/data/energy/).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "stages/energy/params.hpp"
#include "stages/energy/reference.hpp"
#include "energy_vectors.hpp"

namespace en = screen::energy;

namespace {

using screen::energy::testing::read_vectors;

// Every secondary structure of s[i..j] (0-based, inclusive) with pairs the model allows and
// hairpins of 3 or more letters, memoised by interval.
class Structures {
 public:
  explicit Structures(const std::string& s) : s_(s), n_(static_cast<int>(s.size())), memo_(static_cast<std::size_t>(n_ * n_)) {}
  const std::vector<std::string>& of(int i, int j) {
    static const std::vector<std::string> empty{""};
    if (i > j) return empty;
    auto& slot = memo_[static_cast<std::size_t>(i * n_ + j)];
    if (!slot.empty()) return slot;
    for (const auto& rest : of(i + 1, j)) slot.push_back("." + rest);
    for (int k = i + 4; k <= j; ++k) {
      if (!en::pair_type(en::letter_code(s_[static_cast<std::size_t>(i)]), en::letter_code(s_[static_cast<std::size_t>(k)])))
        continue;
      for (const auto& in : of(i + 1, k - 1))
        for (const auto& rest : of(k + 1, j)) slot.push_back("(" + in + ")" + rest);
    }
    return slot;
  }

 private:
  std::string s_;
  int n_;
  std::vector<std::vector<std::string>> memo_;
};

std::string random_strand(std::mt19937& rng, int n, bool plain = false) {
  static const char mixed[] = "ACGUACGUACGUACGUGCGCTXNacgu-";
  static const char acgu[] = "ACGU";
  std::string s;
  for (int k = 0; k < n; ++k) s += plain ? acgu[rng() % 4] : mixed[rng() % (sizeof(mixed) - 1)];
  return s;
}

}  // namespace

TEST(EnergyParams, TableValuesAt37) {
  const en::Model& m = en::model_at(37.0);
  EXPECT_EQ(m.stack[1][1], -240);  // CG on GC read from inside: the table's first real entry
  EXPECT_EQ(m.hairpin[3], 570);
  EXPECT_EQ(m.ml_closing, 340);
  EXPECT_EQ(m.ml_intern[1], 40);
  EXPECT_EQ(m.ml_intern[5], 90);  // with the terminal AU penalty
  EXPECT_EQ(m.terminal_au, 50);
  EXPECT_EQ(m.tetraloop_count, 30);
  EXPECT_EQ(en::tetraloop_bonus(m, "GGGGAC"), -300);
  EXPECT_EQ(en::tetraloop_bonus(m, "gggGAC"), 0);  // as written: lower case is not listed
}

TEST(EnergyParams, RescaledTo30ByTheFormula) {
  const en::Model& m = en::model_at(30.0);
  const double f = (30.0 + 273.15) / 310.15;
  EXPECT_EQ(m.stack[1][1], static_cast<int>(-1060 - (-1060 - -240) * f));  // enthalpy -1060
  EXPECT_EQ(m.hairpin[3], static_cast<int>(570 * f));
  EXPECT_EQ(m.ml_closing, static_cast<int>(340 * f));
  EXPECT_EQ(m.terminal_au, 50);  // not rescaled
  EXPECT_EQ(en::tetraloop_bonus(m, "GGGGAC"), static_cast<int>(-400 - (-400 - -300) * f));
  for (int t = 0; t < 8; ++t)
    for (int b = 0; b < 5; ++b) {
      EXPECT_LE(m.dangle5[t][b], 0);
      EXPECT_LE(m.dangle3[t][b], 0);
    }
}

TEST(EnergyParams, BadTablesAndTemperaturesAreRefused) {
  EXPECT_THROW(en::model_at(150.0), screen::UsageError);
  EXPECT_THROW(en::model_from_table("stack37\t8x8\t1 2 3\n", 37.0, "t.tsv"), screen::InputError);
  EXPECT_THROW(en::model_from_table("stack37 8x8\n", 37.0, "t.tsv"), screen::InputError);
  std::string text = en::builtin_table();
  text.replace(text.find("ML_closing37\t1\t340"), 18, "ML_closing37\t1\tabc");
  EXPECT_THROW(en::model_from_table(text, 37.0, "t.tsv"), screen::InputError);
}

TEST(EnergyReference, FoldEqualsTheBestOfEveryStructure) {
  // Brute force: every structure of short random strands evaluated; the fold's energy is their
  // minimum and its structure one that attains it. At 37 and 30 degrees.
  std::mt19937 rng(1999u);
  int checked = 0;
  long long structures = 0;
  for (double celsius : {37.0, 30.0}) {
    const en::Model& m = en::model_at(celsius);
    for (int k = 0; k < 150; ++k) {
      // Half of plain ACGU of 12 to 22 letters (multiloops appear from 14), half with X, N, T, '-'.
      const bool plain = k % 2 == 0;
      const std::string s = random_strand(rng, plain ? 12 + static_cast<int>(rng() % 11) : 5 + static_cast<int>(rng() % 10), plain);
      Structures all(s);
      int best = en::kInf;
      for (const auto& st : all.of(0, static_cast<int>(s.size()) - 1)) {
        best = std::min(best, en::evaluate_structure(s, st, m));
        ++structures;
      }
      const en::FoldResult r = en::fold_reference(s, m, true);
      ASSERT_EQ(r.energy, best) << s << " at " << celsius;
      ASSERT_EQ(en::evaluate_structure(s, r.structure, m), r.energy) << s << " " << r.structure;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 300);
  EXPECT_GT(structures, 200000);  // 295,973 with this seed
}

TEST(EnergyReference, PlantedHairpinsAndStemsMatchTheirEvaluation) {
  // Longer strands with stems and multiloops (brute force cannot enumerate these).
  std::mt19937 rng(7u);
  const en::Model& m = en::model_at(30.0);
  for (int k = 0; k < 60; ++k) {
    std::string stem = random_strand(rng, 6 + static_cast<int>(rng() % 6));
    std::string rc;
    for (auto it = stem.rbegin(); it != stem.rend(); ++it) {
      const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(*it)));
      rc += c == 'A' ? 'U' : c == 'U' || c == 'T' ? 'A' : c == 'G' ? 'C' : c == 'C' ? 'G' : 'N';
    }
    const std::string s = random_strand(rng, 3) + stem + random_strand(rng, 4 + static_cast<int>(rng() % 5)) + rc +
                          random_strand(rng, 2) + stem + "GAAA" + rc + random_strand(rng, 3);
    const en::FoldResult r = en::fold_reference(s, m, true);
    EXPECT_EQ(en::evaluate_structure(s, r.structure, m), r.energy) << s << " " << r.structure;
    EXPECT_LT(r.energy, 0) << s;
  }
}

TEST(EnergyReference, RandomFoldVectorsAt30And37) {
  // miRanda 3.3a's Vienna 1.x fold() on 3,000 random strands (planted stems, X, N, T, lower case,
  // '-'): the same energy, our structure re-evaluates to it, and Vienna's structure evaluates to it.
  for (const auto& [file, celsius] : {std::pair<const char*, double>{"random_folds_30C.tsv", 30.0},
                                      std::pair<const char*, double>{"random_folds_37C.tsv", 37.0}}) {
    const en::Model& m = en::model_at(celsius);
    const auto vectors = read_vectors(file);
    ASSERT_EQ(vectors.size(), 3000u) << file;
    int bad = 0, same_structure = 0;
    for (const auto& v : vectors) {
      const en::FoldResult r = en::fold_reference(v.sequence, m, true);
      const int ours = en::evaluate_structure(v.sequence, r.structure, m);
      const int theirs = en::evaluate_structure(v.sequence, v.structure, m);
      same_structure += r.structure == v.structure ? 1 : 0;
      if ((r.energy != v.energy || ours != r.energy || theirs != v.energy) && ++bad <= 5)
        ADD_FAILURE() << file << ": " << v.sequence << ": vector " << v.energy << " " << v.structure << " (evaluates to "
                      << theirs << "), ours " << r.energy << " " << r.structure << " (evaluates to " << ours << ")";
    }
    EXPECT_EQ(bad, 0) << file;
    // Ties may pick another structure of equal energy; most are Vienna's own.
    EXPECT_GT(same_structure, 2700) << file;
  }
}

TEST(EnergyReference, DuplexVectorsAt30) {
  // The duplex strings miRanda built from its hits (query, seven X, reversed target) and the
  // energies it printed: every 5th of the 20,519 here (all of them in the fast paths' tests).
  const en::Model& m = en::model_at(30.0);
  const auto vectors = read_vectors("duplex_folds_30C.tsv");
  ASSERT_EQ(vectors.size(), 20519u);
  int bad = 0, checked = 0;
  for (std::size_t k = 0; k < vectors.size(); k += 5) {
    const auto& v = vectors[k];
    const en::FoldResult r = en::fold_reference(v.sequence, m, false);
    ++checked;
    if (r.energy != v.energy && ++bad <= 5)
      ADD_FAILURE() << v.sequence << ": vector " << v.energy << ", ours " << r.energy;
  }
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(checked, 4104);
}

TEST(EnergyReference, StructureErrorsAreInputErrors) {
  const en::Model& m = en::model_at(30.0);
  EXPECT_THROW(en::evaluate_structure("GGGAAACCC", "(((...)))x", m), screen::InputError);   // length
  EXPECT_THROW(en::evaluate_structure("GGGAAACCC", "(((...))", m), screen::InputError);     // length
  EXPECT_THROW(en::evaluate_structure("GGGAAACCC", "((....)))", m), screen::InputError);    // unbalanced
  EXPECT_THROW(en::evaluate_structure("GGGAAAAAA", "(.......)", m), screen::InputError);    // G-A
  EXPECT_THROW(en::evaluate_structure("GGGAACCCC", "...(..)..", m), screen::InputError);    // hairpin of 2
  EXPECT_EQ(en::evaluate_structure("GGGAAACCC", ".........", m), 0);
  EXPECT_EQ(en::fold_reference("", m).energy, 0);
  EXPECT_EQ(en::fold_reference("GGGAAACCC", m).structure.size(), 9u);
}
