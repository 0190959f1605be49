// The Nussinov GPU path (fold_gpu_batch, fold_gpu_long) against the reference: scores and structures
// identical on random sequences of many lengths and parameter sets, both cell widths, every structure
// re-scoring to its score; memory planning refuses what cannot fit with a ResourceError.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/error.hpp"
#include "gpu/device_info.hpp"
#include "kernels/nussinov/nussinov_launch.hpp"
#include "stages/nussinov/compact.hpp"
#include "stages/nussinov/cpu.hpp"
#include "stages/nussinov/cuda.hpp"
#include "stages/nussinov/reference.hpp"
#include "stages/nussinov/traceback.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace {

namespace nu = screen::nussinov;
namespace knl = screen::kernels::nussinov;


// Sets the cell width (0 = automatic) and the schedule; restores the defaults on scope exit.
struct TuningGuard {
  TuningGuard(int force_cell_bytes, bool lookahead, bool force_relative = false) {
    knl::Tuning t;
    t.force_cell_bytes = force_cell_bytes;
    t.lookahead = lookahead;
    t.force_relative = force_relative;
    knl::set_tuning(t);
  }
  ~TuningGuard() { knl::set_tuning(knl::Tuning{}); }
};

struct Case {
  nu::Params p;
  std::string name;
};

nu::Params make_params(int min_loop, int max_span, double cg, double au, double gu) {
  nu::Params p;
  p.min_loop = min_loop;
  p.max_span = max_span;
  p.weights = screen::make_pair_weights(cg, au, gu, "test");
  return p;
}

std::vector<Case> parameter_cases() {
  std::vector<Case> cases;
  const double w[3][3] = {{1, 1, 1}, {3, 2, 1}, {3, 1, 1.5}};
  const char* wn[3] = {"unit", "3,2,1", "3,1,1.5"};
  int k = 0;
  for (int wi = 0; wi < 3; ++wi)
    for (int ml = 0; ml <= 4; ++ml) {
      const int span = (k % 3 == 0) ? 0 : (k % 3 == 1 ? 40 : 150);
      cases.push_back({make_params(ml, span, w[wi][0], w[wi][1], w[wi][2]),
                       std::string(wn[wi]) + " min_loop " + std::to_string(ml) + " max_span " + std::to_string(span)});
      ++k;
    }
  return cases;
}

std::vector<std::uint8_t> random_seq(std::mt19937& rng, int n) {
  std::vector<std::uint8_t> s(static_cast<std::size_t>(n));
  for (auto& c : s) {
    const unsigned r = rng() % 64u;
    c = static_cast<std::uint8_t>(r == 0 ? 4u : r & 3u);  // about 1 in 64 is N
  }
  return s;
}

// One parameter case: fold seqs by batch and by long, compare with the reference.
void compare_case(const Case& c, const std::vector<std::vector<std::uint8_t>>& seqs, const std::string& label) {
  std::vector<const std::uint8_t*> ptrs;
  std::vector<int> lens;
  for (const auto& s : seqs) {
    ptrs.push_back(s.data());
    lens.push_back(static_cast<int>(s.size()));
  }
  std::vector<nu::FoldResult> ref(seqs.size());
  screen::testing::parallel_for(seqs.size(), [&](std::size_t k) { ref[k] = nu::fold_reference(ptrs[k], lens[k], c.p, true); });
  const auto batch = nu::fold_gpu_batch(ptrs, lens, c.p, true);
  const auto batch_scores = nu::fold_gpu_batch(ptrs, lens, c.p, false);
  ASSERT_EQ(batch.size(), seqs.size());
  int bad = 0;
  for (std::size_t k = 0; k < seqs.size(); ++k) {
    const auto lg = nu::fold_gpu_long(ptrs[k], lens[k], c.p, true);
    const bool ok = batch[k].score == ref[k].score && batch[k].structure == ref[k].structure &&
                    batch_scores[k].score == ref[k].score && lg.score == ref[k].score &&
                    lg.structure == ref[k].structure &&
                    nu::score_structure(ptrs[k], lens[k], c.p, lg.structure) == lg.score;
    if (!ok && ++bad <= 5)
      ADD_FAILURE() << label << " [" << c.name << "] n=" << lens[k] << ": ref " << ref[k].score << " batch "
                    << batch[k].score << " batch(score only) " << batch_scores[k].score << " long " << lg.score
                    << (batch[k].structure == ref[k].structure ? "" : " (batch structure differs)")
                    << (lg.structure == ref[k].structure ? "" : " (long structure differs)");
  }
  EXPECT_EQ(bad, 0) << label << " [" << c.name << "]";
}

void random_cases(int force_cell_bytes, bool lookahead, int per_case, unsigned seed, bool force_relative = false) {
  TuningGuard guard(force_cell_bytes, lookahead, force_relative);
  std::mt19937 rng(seed);
  for (const auto& c : parameter_cases()) {
    std::vector<std::vector<std::uint8_t>> seqs;
    for (int k = 0; k < per_case; ++k) {
      // lengths over 1..400, with the tile edges (63..66, 127..130) and the shared-memory limits
      // (192, 280) hit often
      static const int edges[] = {1, 2, 3, 4, 5, 63, 64, 65, 66, 127, 128, 129, 192, 193, 280, 281};
      const int n = (k % 5 == 0) ? edges[static_cast<std::size_t>(k / 5) % 16] : 1 + static_cast<int>(rng() % 400u);
      seqs.push_back(random_seq(rng, n));
    }
    compare_case(c, seqs, std::string(force_relative ? "relative " : "") + "cells " +
                              std::to_string(force_cell_bytes ? force_cell_bytes * 8 : 0));
    if (testing::Test::HasFailure()) return;
  }
}

TEST(NussinovGpu, RandomSequencesMatchReferenceAutoWidth) {
  SCREEN_REQUIRE_GPU();
  random_cases(0, true, 70, 2024u);  // 15 parameter cases x 70 = 1,050 sequences, 16-bit cells
}

TEST(NussinovGpu, RandomSequencesMatchReferenceForced32Bit) {
  SCREEN_REQUIRE_GPU();
  random_cases(4, false, 24, 99u);  // the 32-bit kernels on the same mix (360 sequences), one-stream schedule
}

TEST(NussinovGpu, LargeWeightsChoose32BitAndMatch) {
  SCREEN_REQUIRE_GPU();
  // max_possible_score(400) = 200 * 1000 > 32767: the automatic choice is 32-bit cells.
  const Case c{make_params(3, 0, 1000, 7, 999.5), "large weights"};
  EXPECT_EQ(knl::cell_bytes_for(400, c.p), 4);
  EXPECT_EQ(knl::cell_bytes_for(400, nu::Params{}), 2);
  std::mt19937 rng(7u);
  std::vector<std::vector<std::uint8_t>> seqs;
  for (int k = 0; k < 60; ++k) seqs.push_back(random_seq(rng, 1 + static_cast<int>(rng() % 400u)));
  compare_case(c, seqs, "auto 32-bit");
}

TEST(NussinovGpu, LongSequencesMatchReference) {
  SCREEN_REQUIRE_GPU();
  std::mt19937 rng(31337u);
  const Case cases[3] = {{make_params(3, 0, 1, 1, 1), "unit min_loop 3"},
                         {make_params(1, 700, 3, 2, 1), "3,2,1 min_loop 1 max_span 700"},
                         {make_params(0, 0, 3, 1, 1.5), "3,1,1.5 min_loop 0"}};
  std::vector<std::vector<std::uint8_t>> seqs;
  for (int k = 0; k < 12; ++k) seqs.push_back(random_seq(rng, 2000 + k * 272));  // 2,000 .. 4,992 nt
  std::vector<const std::uint8_t*> ptrs;
  std::vector<int> lens;
  for (const auto& s : seqs) {
    ptrs.push_back(s.data());
    lens.push_back(static_cast<int>(s.size()));
  }
  std::vector<nu::FoldResult> ref(seqs.size());
  screen::testing::parallel_for(seqs.size(), [&](std::size_t k) { ref[k] = nu::fold_reference(ptrs[k], lens[k], cases[k % 3].p, true); });
  for (int ci = 0; ci < 3; ++ci) {
    std::vector<const std::uint8_t*> bp;
    std::vector<int> bl;
    std::vector<std::size_t> bi;
    for (std::size_t k = static_cast<std::size_t>(ci); k < seqs.size(); k += 3) {
      bp.push_back(ptrs[k]);
      bl.push_back(lens[k]);
      bi.push_back(k);
    }
    const auto batch = nu::fold_gpu_batch(bp, bl, cases[ci].p, true);
    for (std::size_t m = 0; m < bi.size(); ++m) {
      const std::size_t k = bi[m];
      const auto lg = nu::fold_gpu_long(ptrs[k], lens[k], cases[ci].p, true);
      EXPECT_EQ(lg.score, ref[k].score) << cases[ci].name << " n=" << lens[k];
      EXPECT_EQ(batch[m].score, ref[k].score) << cases[ci].name << " n=" << lens[k];
      EXPECT_TRUE(lg.structure == ref[k].structure) << cases[ci].name << " n=" << lens[k] << " long structure";
      EXPECT_TRUE(batch[m].structure == ref[k].structure) << cases[ci].name << " n=" << lens[k] << " batch structure";
      EXPECT_EQ(nu::score_structure(ptrs[k], lens[k], cases[ci].p, lg.structure), ref[k].score);
    }
  }
}

// The structures are traced on the GPU (nussinov_traceback.cu): long folds, whose bifurcation searches
// run over many blocks of split points, in plain 16-bit, relative 16-bit and 32-bit cells, give the CPU
// fast path's structures (the reference is too slow at these lengths), and each re-scores to its score.
TEST(NussinovGpu, LongFoldsTracedOnTheGpuEqualTheCpuPath) {
  SCREEN_REQUIRE_GPU();
  struct Form {
    int force_cell_bytes;
    bool force_relative;
    const char* name;
  };
  std::mt19937 rng(4242u);
  const nu::Params p = make_params(3, 0, 3, 2, 1);
  std::vector<std::vector<std::uint8_t>> seqs;
  for (int n : {6001, 9000, 12345}) seqs.push_back(random_seq(rng, n));
  std::vector<nu::FoldResult> cpu(seqs.size());
  for (std::size_t k = 0; k < seqs.size(); ++k)
    cpu[k] = nu::fold_cpu(seqs[k].data(), static_cast<int>(seqs[k].size()), p, true);
  for (const Form f : {Form{0, false, "plain 16-bit"}, Form{2, true, "relative 16-bit"}, Form{4, false, "32-bit"}}) {
    TuningGuard guard(f.force_cell_bytes, true, f.force_relative);
    for (std::size_t k = 0; k < seqs.size(); ++k) {
      const int n = static_cast<int>(seqs[k].size());
      const nu::FoldResult g = nu::fold_gpu_long(seqs[k].data(), n, p, true);
      EXPECT_EQ(g.score, cpu[k].score) << f.name << " n=" << n;
      EXPECT_TRUE(g.structure == cpu[k].structure) << f.name << " n=" << n << ": structures differ";
      EXPECT_EQ(nu::score_structure(seqs[k].data(), n, p, g.structure), g.score) << f.name << " n=" << n;
    }
  }
}

// Scores only, a batch whose tables exceed the GPU's free memory by a third: fold_gpu_batch cuts it into
// groups that fit the GPU. (Before, the grouping counted one of the two scratch buffers, and a group that
// filled the GPU ran out of memory: 10,484 flagship records of 3,000 to 9,000 nt in `screen bench
// nussinov --fasta`.)
TEST(NussinovGpu, MoreTablesThanTheGpuHoldsFoldInGroupsThatFit) {
  SCREEN_REQUIRE_GPU();
  const std::size_t free = screen::gpu::list_devices().at(0).free_memory;
  const int n = 3000;
  const nu::Params p = make_params(3, 0, 3, 2, 1);
  const std::size_t count = free / (nu::packed::table_cells(n) * sizeof(std::int16_t)) * 4 / 3 + 1;
  // A few distinct sequences, repeated: what is tested is the batch's memory, not its variety.
  constexpr std::size_t kDistinct = 8;
  std::mt19937 rng(9001u);
  std::vector<std::vector<std::uint8_t>> distinct;
  for (std::size_t k = 0; k < kDistinct; ++k) distinct.push_back(random_seq(rng, n));
  std::vector<const std::uint8_t*> ptrs(count);
  std::vector<int> lens(count, n);
  for (std::size_t k = 0; k < count; ++k) ptrs[k] = distinct[k % kDistinct].data();
  std::vector<nu::FoldResult> out;
  ASSERT_NO_THROW(out = nu::fold_gpu_batch(ptrs, lens, p, false)) << count << " sequences of " << n << " nt";
  ASSERT_EQ(out.size(), count);
  for (std::size_t k = 0; k < kDistinct; ++k) {
    const long long ref = nu::fold_cpu(distinct[k].data(), n, p, false).score;
    for (std::size_t j = k; j < count; j += kDistinct)
      if (out[j].score != ref) {
        ADD_FAILURE() << "sequence " << j << ": GPU " << out[j].score << ", CPU " << ref;
        break;
      }
  }
}

TEST(NussinovGpu, EmptyAndMixedBatch) {
  SCREEN_REQUIRE_GPU();
  const nu::Params p;
  const auto r0 = nu::fold_gpu_long(nullptr, 0, p, true);
  EXPECT_EQ(r0.score, 0);
  EXPECT_EQ(r0.structure, "");
  std::mt19937 rng(5u);
  const auto a = random_seq(rng, 50), b = random_seq(rng, 700);
  const auto out = nu::fold_gpu_batch({a.data(), nullptr, b.data()}, {50, 0, 700}, p, true);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].score, 0);
  EXPECT_EQ(out[1].structure, "");
  EXPECT_EQ(out[0].score, nu::fold_reference(a.data(), 50, p, false).score);
  EXPECT_EQ(out[2].structure, nu::fold_reference(b.data(), 700, p, true).structure);
}

TEST(NussinovGpu, TooLargeForTheGpuIsAResourceError) {
  SCREEN_REQUIRE_GPU();
  const int n = 3'000'000;  // a 16-bit packed triangle (relative cells) of 9 TB
  std::vector<std::uint8_t> s(static_cast<std::size_t>(n), 0);
  const nu::Params p;
  try {
    nu::fold_gpu_long(s.data(), n, p, false);
    ADD_FAILURE() << "expected ResourceError";
  } catch (const screen::ResourceError& e) {
    EXPECT_NE(std::string(e.what()).find("GiB"), std::string::npos) << e.what();
  }
  EXPECT_THROW(nu::fold_gpu_batch({s.data()}, {n}, p, false), screen::ResourceError);
}

// ---- relative cells (16-bit offsets from per-tile bases, packed_layout.hpp) ----

TEST(NussinovGpu, RelativeCellsForcedMatchReference) {
  SCREEN_REQUIRE_GPU();
  // The tiled engine (fold_gpu_long, and the batch's sequences over 280 nt) in relative cells on the
  // usual mix, with both schedules.
  random_cases(0, true, 30, 4242u, true);
  random_cases(0, false, 12, 4343u, true);
}

// The GPU's relative tables (offsets and bases) equal the CPU compact path's, cell for cell,
// including the padding past n; several sequences in one group.
TEST(NussinovGpu, RelativeTablesEqualTheCompactPathBytes) {
  SCREEN_REQUIRE_GPU();
  TuningGuard guard(0, true, true);
  std::mt19937 rng(77u);
  const Case cases[3] = {{make_params(3, 0, 1, 1, 1), "unit"},
                         {make_params(0, 300, 64, 63, 1), "64,63,1 max_span 300"},
                         {make_params(2, 0, 32, 0.5, 31.5), "half units up to 64"}};
  for (const auto& c : cases) {
    std::vector<std::vector<std::uint8_t>> seqs;
    for (int n : {1, 63, 64, 300, 1000, 2500}) seqs.push_back(random_seq(rng, n));
    std::vector<const std::uint8_t*> ptrs;
    std::vector<int> lens;
    for (const auto& s : seqs) {
      ptrs.push_back(s.data());
      lens.push_back(static_cast<int>(s.size()));
    }
    ASSERT_TRUE(knl::relative_cells(2500, 2, c.p));
    knl::GroupOutput g;
    knl::tiled_fold(ptrs, lens, c.p, 2, knl::FoldOutput::tables, g, 0);
    ASSERT_TRUE(g.relative);
    for (std::size_t k = 0; k < seqs.size(); ++k) {
      const nu::CompactTable t = nu::compact_table(ptrs[k], lens[k], c.p, 0);
      EXPECT_EQ(g.scores[k], t.m(0, lens[k])) << c.name << " n=" << lens[k];
      EXPECT_TRUE(std::equal(t.base.begin(), t.base.end(), g.tile_base[k])) << c.name << " n=" << lens[k] << " bases";
      EXPECT_TRUE(std::equal(t.cells.begin(), t.cells.end(), g.table16[k])) << c.name << " n=" << lens[k] << " cells";
    }
    knl::release_large_host_tables();
  }
}

// Weights of 64 push the score bound past int16 from 1,024 nt: the automatic choice is relative
// cells there (plain ones below), and the folds equal the reference with their structures.
TEST(NussinovGpu, PastTheSixteenBitBoundRelativeCellsMatchReference) {
  SCREEN_REQUIRE_GPU();
  const Case c{make_params(3, 0, 64, 64, 64), "weights 64"};
  EXPECT_FALSE(knl::relative_cells(1023, knl::cell_bytes_for(1023, c.p), c.p));
  EXPECT_EQ(knl::cell_bytes_for(1024, c.p), 2);
  EXPECT_TRUE(knl::relative_cells(1024, 2, c.p));
  std::mt19937 rng(64u);
  std::vector<std::vector<std::uint8_t>> seqs;
  for (int n : {1024, 1100, 1500, 2049, 3000}) seqs.push_back(random_seq(rng, n));
  compare_case(c, seqs, "auto relative");
}

// The tiled engine's tables do not depend on how the work is cut: split-K waves, the split-K slices
// maxed by finalize instead of the reduce kernel, the panel's padding, the schedule and the panels on one
// stream instead of two give the same
// bytes (and tile bases) as the defaults, in plain 16-bit, relative 16-bit and 32-bit cells.
TEST(NussinovGpu, TablesDoNotDependOnHowTheWorkIsCut) {
  SCREEN_REQUIRE_GPU();
  std::mt19937 rng(2026u);
  std::vector<std::vector<std::uint8_t>> seqs;
  for (int n : {63, 700, 2500, 4100}) seqs.push_back(random_seq(rng, n));
  std::vector<const std::uint8_t*> ptrs;
  std::vector<int> lens;
  for (const auto& s : seqs) {
    ptrs.push_back(s.data());
    lens.push_back(static_cast<int>(s.size()));
  }
  const nu::Params p = make_params(3, 0, 3, 2, 1);
  struct Format {
    int cell_bytes;
    bool relative;
    const char* name;
  };
  // Every table of one fold, copied out (GroupOutput's views die with the thread's next group).
  struct Tables {
    std::vector<long long> scores;
    std::vector<std::vector<std::int32_t>> cells, bases;
  };
  auto fold = [&](const knl::Tuning& t, const Format& f) {
    knl::set_tuning(t);
    knl::GroupOutput g;
    knl::tiled_fold(ptrs, lens, p, f.cell_bytes, knl::FoldOutput::tables, g, 0);
    knl::set_tuning(knl::Tuning{});
    Tables out;
    out.scores = g.scores;
    for (std::size_t k = 0; k < seqs.size(); ++k) {
      const std::size_t cells = nu::packed::table_cells(lens[k]);
      if (f.cell_bytes == 2) out.cells.emplace_back(g.table16[k], g.table16[k] + cells);
      else out.cells.emplace_back(g.table32[k], g.table32[k] + cells);
      if (g.relative) out.bases.emplace_back(g.tile_base[k], g.tile_base[k] + nu::packed::tile_count(nu::packed::tiles_per_side(lens[k])));
    }
    knl::release_large_host_tables();
    return out;
  };
  for (const Format f : {Format{2, false, "plain 16-bit"}, Format{2, true, "relative 16-bit"}, Format{4, false, "32-bit"}}) {
    knl::Tuning base;
    base.force_cell_bytes = f.cell_bytes;
    base.force_relative = f.relative;
    const Tables ref = fold(base, f);
    std::vector<std::pair<knl::Tuning, std::string>> variants;
    auto add = [&](const std::string& name, auto change) {
      knl::Tuning t = base;
      change(t);
      variants.emplace_back(t, name);
    };
    add("waves 1, no slices fused", [](knl::Tuning& t) { t.split_waves = 1, t.fused_slices = 1; });
    add("waves 8, every slice fused", [](knl::Tuning& t) { t.split_waves = 8, t.fused_slices = 1 << 20; });
    add("panel not padded", [](knl::Tuning& t) { t.panel_blocks_per_sm = 0; });
    add("one stream", [](knl::Tuning& t) { t.lookahead = false; });
    add("the panels on one stream", [](knl::Tuning& t) { t.panel_streams = 1; });
    for (const auto& [t, name] : variants) {
      const Tables got = fold(t, f);
      EXPECT_EQ(got.scores, ref.scores) << f.name << ", " << name;
      for (std::size_t k = 0; k < seqs.size(); ++k) {
        EXPECT_TRUE(got.cells[k] == ref.cells[k]) << f.name << ", " << name << ": n = " << lens[k];
        if (f.relative) {
          EXPECT_TRUE(got.bases[k] == ref.bases[k]) << f.name << ", " << name << ": n = " << lens[k] << " bases";
        }
      }
    }
  }
}

TEST(NussinovGpu, CellFormatAtTheBoundaries) {
  SCREEN_REQUIRE_GPU();
  const nu::Params unit;
  // max_possible_score(n) = (n / 2) * w: 32,767 at 65,535 nt, 32,768 from 65,536.
  EXPECT_EQ(knl::cell_bytes_for(65535, unit), 2);
  EXPECT_FALSE(knl::relative_cells(65535, 2, unit));
  EXPECT_EQ(knl::cell_bytes_for(65536, unit), 2);
  EXPECT_TRUE(knl::relative_cells(65536, 2, unit));
  EXPECT_EQ(knl::cell_bytes_for(205012, unit), 2);
  const nu::Params heavy = make_params(3, 0, 65, 1, 1);  // offsets could overflow: plain 32-bit
  EXPECT_EQ(knl::cell_bytes_for(1100, heavy), 4);
  EXPECT_FALSE(knl::relative_cells(1100, 4, heavy));
}

}  // namespace
