// TargetScan site types of miRanda hits (site_type.hpp, docs/algorithms.md): each type built by hand
// from let-7a's seed, the cases that break one (wobble, mismatch, gap, a target that ran out), and
// on the human microRNAs' hits in the SARS-CoV-2 genome, every hit that passes miRanda's strict seed
// test (positions 2-8 paired, no gap) is an 8mer or a 7mer-m8.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include "miranda_test_util.hpp"
#include "stages/miranda/align_batch.hpp"
#include "stages/miranda/reference.hpp"
#include "stages/miranda/site_type.hpp"

namespace screen::miranda {
namespace {

// let-7a-5p, 5'->3': UGAGGUAGUAGGUUGUAUAGUU. Display lines are 3'->5' for the microRNA.
const std::string kMir = "UGAGGUAGUAGGUUGUAUAGUU";

std::string reversed(std::string s) {
  std::reverse(s.begin(), s.end());
  return s;
}

char complement(char c) { return c == 'A' ? 'U' : c == 'U' ? 'A' : c == 'G' ? 'C' : 'G'; }

// The target line facing the microRNA, 5'->3' on the target (column k faces the query line's
// column k): position p of the microRNA faces target letter site[p-1] given 5' end first.
std::string target_facing(const std::string& by_position) { return reversed(by_position); }

// Target letters facing positions 1..22, perfect Watson-Crick except where changed.
std::string perfect() {
  std::string s;
  for (const char c : kMir) s += complement(c);
  return s;
}

SiteType of(const std::string& facing_by_position, const std::string& mir = kMir) {
  return site_type(reversed(mir), target_facing(facing_by_position));
}

TEST(SiteType, EachTypeAndWhatBreaksIt) {
  std::string t = perfect();
  t[0] = 'A';  // position 1 faces an A
  EXPECT_EQ(of(t), SiteType::eight_mer);
  t[0] = 'G';
  EXPECT_EQ(of(t), SiteType::seven_mer_m8);
  t[0] = 'a';  // case does not matter (flanks are lower case)
  EXPECT_EQ(of(t), SiteType::eight_mer);
  std::string m8 = perfect();
  m8[0] = 'A';
  m8[7] = 'A';  // position 8 (G) faces A: a mismatch
  EXPECT_EQ(of(m8), SiteType::seven_mer_a1);
  m8[0] = 'C';
  EXPECT_EQ(of(m8), SiteType::six_mer);
  std::string off = perfect();
  off[1] = 'G';  // position 2 (G) faces G: 3-8 remain
  EXPECT_EQ(of(off), SiteType::offset_6mer);
  std::string wobble = perfect();
  wobble[0] = 'A';
  wobble[3] = 'U';  // position 4 (G) faces U: a G:U wobble is not a seed pair
  EXPECT_EQ(of(wobble), SiteType::none);
  std::string t_letters = perfect();
  t_letters[0] = 'A';
  std::replace(t_letters.begin(), t_letters.end(), 'U', 'T');  // DNA letters pair as RNA
  EXPECT_EQ(of(t_letters), SiteType::eight_mer);
}

TEST(SiteType, GapsAndShortLines) {
  // An extra target letter between positions 4 and 5: a query '-' column there.
  std::string q = reversed(kMir), t = target_facing(perfect());
  t[t.size() - 1] = 'A';
  const std::size_t between = q.size() - 4;  // the column left of position 4
  q.insert(between, "-");
  t.insert(between, "C");
  EXPECT_EQ(site_type(q, t), SiteType::none);
  // The same gap between positions 8 and 9 leaves the site whole.
  q = reversed(kMir);
  t = target_facing(perfect());
  t[t.size() - 1] = 'A';
  q.insert(q.size() - 8, "-");
  t.insert(t.size() - 8, "G");
  EXPECT_EQ(site_type(q, t), SiteType::eight_mer);
  // A target gap facing position 6, a target that ran out at position 1, a seven-letter query.
  t = target_facing(perfect());
  t[t.size() - 6] = '-';
  EXPECT_EQ(site_type(reversed(kMir), t), SiteType::none);
  t = target_facing(perfect());
  t[t.size() - 1] = '-';
  EXPECT_EQ(site_type(reversed(kMir), t), SiteType::seven_mer_m8);
  EXPECT_EQ(site_type("AUGGAGU", "UACCUCA"), SiteType::none);
  EXPECT_STREQ(site_type_name(SiteType::seven_mer_a1), "7mer-A1");
  EXPECT_STREQ(site_type_name(SiteType::offset_6mer), "offset-6mer");
}

TEST(SiteType, StrictHitsAreSevenOrEightMers) {
  const std::string mature = test::data_path("../../../data/hsa_mature_mirbase.fa"),
                    genome = test::data_path("../../../data/sarscov2_NC_045512.2.fa");
  if (!std::filesystem::exists(mature) || !std::filesystem::exists(genome)) GTEST_SKIP() << "data/ not present";
  const test::Inputs q = test::load_inputs(mature), t = test::load_inputs(genome);
  BatchOptions o;
  o.threads = 2;
  const auto results = align_batch(q.set, t.set, Params{}, o);
  std::map<SiteType, int> count;
  int strict = 0;
  for (const auto& r : results)
    for (const auto& h : r.hits) {
      const SiteType s = site_type(h.query_line, h.target_line);
      ++count[s];
      if (passes_strict(h)) {
        ++strict;
        EXPECT_TRUE(s == SiteType::eight_mer || s == SiteType::seven_mer_m8) << h.query_line << "\n" << h.target_line;
      }
    }
  EXPECT_GT(strict, 1000);
  for (const SiteType s : {SiteType::eight_mer, SiteType::seven_mer_m8, SiteType::seven_mer_a1, SiteType::six_mer,
                           SiteType::offset_6mer, SiteType::none})
    EXPECT_GT(count[s], 0) << site_type_name(s);
}

}  // namespace
}  // namespace screen::miranda
