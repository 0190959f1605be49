// BPMax on the GPU (lib/stages/bpmax/cuda.hpp) against the CPU paths: the public vectors
// unwindowed, many random pairs of mixed lengths with many window settings in single batches (16-
// and 32-bit cells), a long windowed target, wide target windows, and pairs routed to the CPU by the
// memory budget, and device buffers kept from one call to the next.
// Scores, sites, optional fields and tracebacks must be identical.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "gpu/device_info.hpp"
#include "gpu_test_util.hpp"
#include "stages/bpmax/cpu.hpp"
#include "stages/bpmax/cuda.hpp"
#include "stages/bpmax/window_pruning.hpp"
#include "stages/bpmax/interact.hpp"
#include "kernels/bpmax/bpmax_launch.hpp"
#include "../bpmax/bpmax_test_util.hpp"
#include "../bpmax/vector_rows.hpp"

namespace screen::bpmax {
namespace {

using test::expect_same_site;


struct Case {
  std::vector<std::uint8_t> x, y;
};

std::vector<PairInput> inputs(const std::vector<Case>& cases) {
  std::vector<PairInput> pairs;
  for (std::size_t k = 0; k < cases.size(); ++k)
    pairs.push_back({{cases[k].x.data(), static_cast<int>(cases[k].x.size())},
                     {cases[k].y.data(), static_cast<int>(cases[k].y.size())},
                     k,
                     k + 1000});
  return pairs;
}

// One batch of the cases with target window w2, all on the GPU, equal to the CPU path (sites and
// tracebacks).
void expect_one_gpu_batch_equals_the_cpu(const std::vector<Case>& cases, int w2) {
  const auto pairs = inputs(cases);
  Params p;
  p.target_window = w2;
  GpuStats stats;
  const auto got = interact_pairs_gpu(pairs, p, TracebackMode::all(), GpuOptions{}, &stats);
  const auto want = interact_pairs(pairs, p, TracebackMode::all(), Method::cpu);
  EXPECT_EQ(stats.gpu_pairs, pairs.size()) << "W2 " << w2;
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < pairs.size(); ++k)
    expect_same_site(want[k].site, got[k].site,
                     "W2 " + std::to_string(w2) + " pair " + std::to_string(k) + " (" + std::to_string(cases[k].x.size()) +
                         " x " + std::to_string(cases[k].y.size()) + ")");
}

// The pairs scored on the GPU (with `options`) and on the CPU under weights w and target window w2: every
// site and traceback equal. Returns the GPU call's statistics (which pairs it sent to the CPU).
GpuStats expect_gpu_equals_cpu(const std::vector<PairInput>& pairs, const PairWeights& w, int w2, const GpuOptions& options,
                               const std::string& what) {
  Params p;
  p.weights = w;
  p.target_window = w2;
  GpuStats stats;
  const auto got = interact_pairs_gpu(pairs, p, TracebackMode::all(), options, &stats);
  const auto want = interact_pairs(pairs, p, TracebackMode::all(), Method::cpu);
  for (std::size_t k = 0; k < pairs.size(); ++k) expect_same_site(want[k].site, got[k].site, what + " pair " + std::to_string(k));
  return stats;
}

TEST(BpmaxGpu, PublicVectorsEqualTheReference) {
  SCREEN_REQUIRE_GPU();
  for (const auto& row : test::read_rows()) {
    SCOPED_TRACE(row.id);
    Params p;
    p.weights = make_pair_weights(row.cg, row.au, row.gu, "vectors");
    const Case c{test::codes(row.query), test::codes(row.target)};
    GpuStats stats;
    const auto got = interact_pairs_gpu(inputs({c}), p, TracebackMode::all(), {}, &stats);
    EXPECT_EQ(stats.gpu_pairs, 1u);
    const SiteResult want =
        interact_reference(c.x.data(), static_cast<int>(c.x.size()), c.y.data(), static_cast<int>(c.y.size()), p, true);
    ASSERT_EQ(got.size(), 1u);
    expect_same_site(want, got[0].site, row.id);
    EXPECT_EQ(*got[0].site.full, test::units(row.full, p.weights.scale));
    test::check_structure(row.query, row.target, p, got[0].site);
  }
}

// Random pairs of mixed shapes in one call per parameter set, all traced; the CPU fast path is the
// oracle (itself tested equal to the reference), and every 8th pair is checked with the reference.
TEST(BpmaxGpu, RandomPairsAndWindowsEqualTheCpu) {
  SCREEN_REQUIRE_GPU();
  std::mt19937 rng(20261123);
  const PairWeights weight_sets[] = {{3, 2, 1, 1}, {6, 2, 3, 2}, {3000, 2000, 1000, 1}};  // the last: 32-bit cells
  const int windows1[] = {0, 1, 3, 7, 12};
  const int windows2[] = {0, 1, 4, 9, 16, 33, 64, 128};
  int checked = 0;
  for (const PairWeights& w : weight_sets)
    for (int w1 : windows1)
      for (int w2 : windows2) {
        Params p;
        p.weights = w;
        p.query_window = w1;
        p.target_window = w2;
        std::vector<Case> cases;
        std::uniform_int_distribution<int> qlen(1, 26), tlen(1, w2 == 0 ? 90 : 400);
        for (int k = 0; k < 14; ++k) {
          const int n = qlen(rng), m = tlen(rng);
          cases.push_back({test::codes(test::random_letters(rng, n, k % 5 == 0)),
                           test::codes(test::random_letters(rng, m, k % 7 == 0))});
        }
        const auto pairs = inputs(cases);
        GpuStats stats;
        const auto got = interact_pairs_gpu(pairs, p, TracebackMode::all(), {}, &stats);
        EXPECT_EQ(stats.gpu_pairs, pairs.size());
        const auto want = interact_pairs(pairs, p, TracebackMode::all(), Method::cpu);
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t k = 0; k < got.size(); ++k) {
          const std::string what = "weights " + std::to_string(w.cg) + " W1 " + std::to_string(w1) + " W2 " +
                                   std::to_string(w2) + " pair " + std::to_string(k) + " (" +
                                   std::to_string(cases[k].x.size()) + " x " + std::to_string(cases[k].y.size()) + ")";
          EXPECT_EQ(got[k].query_index, pairs[k].query_index);
          EXPECT_EQ(got[k].target_index, pairs[k].target_index);
          expect_same_site(want[k].site, got[k].site, what);
          if (k % 8 == 0 && cases[k].x.size() * cases[k].y.size() <= 1500) {
            const SiteResult ref = interact_reference(cases[k].x.data(), static_cast<int>(cases[k].x.size()),
                                                      cases[k].y.data(), static_cast<int>(cases[k].y.size()), p, true);
            expect_same_site(ref, got[k].site, what + " (reference)");
          }
          ++checked;
        }
      }
  EXPECT_EQ(checked, 3 * 5 * 8 * 14);
}

// The engine's way: one GpuBuffers kept across calls (as a GPU worker keeps it between batches),
// scores by score_pairs_gpu and the tracebacks by trace_gpu_sites, with batch sizes that grow and
// shrink, parameters (and cell widths) that change between calls, and a release in the middle:
// every call equals the CPU path.
TEST(BpmaxGpu, BuffersKeptAcrossCallsGiveTheResultsOfTheCpu) {
  SCREEN_REQUIRE_GPU();
  std::mt19937 rng(20261124);
  GpuBuffers kept;
  const PairWeights weight_sets[] = {{3, 2, 1, 1}, {3000, 2000, 1000, 1}};
  const int counts[] = {3, 40, 7, 60, 2, 25};
  for (int call = 0; call < 12; ++call) {
    Params p;
    p.weights = weight_sets[call % 2];
    p.target_window = call % 3 == 0 ? 0 : 24 * (call % 3);
    std::vector<Case> cases;
    std::uniform_int_distribution<int> qlen(5, 23), tlen(10, p.target_window == 0 ? 80 : 300);
    for (int k = 0; k < counts[call % 6]; ++k)
      cases.push_back({test::codes(test::random_letters(rng, qlen(rng))), test::codes(test::random_letters(rng, tlen(rng)))});
    const auto pairs = inputs(cases);
    GpuOptions o;
    o.buffers = &kept;
    GpuScores scores = score_pairs_gpu(pairs, p, TracebackMode::all(), o);
    trace_gpu_sites(pairs, p, scores, 2);
    EXPECT_GT(kept.bytes(), 0u) << "call " << call;
    const auto want = interact_pairs(pairs, p, TracebackMode::all(), Method::cpu);
    ASSERT_EQ(scores.results.size(), want.size());
    for (std::size_t k = 0; k < want.size(); ++k)
      expect_same_site(want[k].site, scores.results[k].site, "call " + std::to_string(call) + " pair " + std::to_string(k));
    if (call == 5) {
      kept.release();
      EXPECT_EQ(kept.bytes(), 0u);
    }
  }
}

// One long target with the thesis's window: many tiles, many d1 steps.
TEST(BpmaxGpu, LongWindowedTargetEqualsTheCpu) {
  SCREEN_REQUIRE_GPU();
  std::mt19937 rng(7);
  Params p;
  p.target_window = 128;
  std::vector<Case> cases{{test::codes(test::random_letters(rng, 23)), test::codes(test::random_letters(rng, 5000))},
                          {test::codes(test::random_letters(rng, 18)), test::codes(test::random_letters(rng, 1234))}};
  const auto pairs = inputs(cases);
  const auto got = interact_pairs_gpu(pairs, p, TracebackMode::all());
  const auto want = interact_pairs(pairs, p, TracebackMode::all(), Method::cpu);
  for (std::size_t k = 0; k < pairs.size(); ++k) expect_same_site(want[k].site, got[k].site, std::to_string(k));
}

// Target windows above 129 (the patch-up's 640-thread form) up to the largest whose 16-bit tables
// fit in shared memory: all on the GPU, equal to the CPU path.
TEST(BpmaxGpu, WideTargetWindowsRunOnTheGpuAndEqualTheCpu) {
  SCREEN_REQUIRE_GPU();
  std::mt19937 rng(13);
  std::vector<Case> cases{{test::codes(test::random_letters(rng, 23)), test::codes(test::random_letters(rng, 200))},
                          {test::codes(test::random_letters(rng, 18)), test::codes(test::random_letters(rng, 150))},
                          {test::codes(test::random_letters(rng, 21)), test::codes(test::random_letters(rng, 131))}};
  const auto pairs = inputs(cases);
  for (int w2 : {0, 180}) {
    Params p;
    p.target_window = w2;
    GpuStats stats;
    const auto got = interact_pairs_gpu(pairs, p, TracebackMode::all(), GpuOptions{}, &stats);
    const auto want = interact_pairs(pairs, p, TracebackMode::all(), Method::cpu);
    for (std::size_t k = 0; k < pairs.size(); ++k)
      expect_same_site(want[k].site, got[k].site, "W2 " + std::to_string(w2) + " pair " + std::to_string(k));
    EXPECT_EQ(stats.gpu_pairs, pairs.size()) << "W2 " << w2;
  }
}

// Windows at the kernels' boundaries: the double reduction's balanced split takes L2 <= 129 (16-bit
// cells), the pairing above; the patch-up's one-row-length form takes L2 <= 128, its 64-column form 129;
// 32-bit tables fit an H100's 227 KB a block up to L2 = 144 (from 129 on in the 32-column patch-up form;
// the patch-up's static shared memory counts too). Each setting is its own batch (its largest window picks
// the kernels), with a target longer than the window (several tiles, the target's end inside a tile) and
// one shorter. The placements are asserted on GPUs with 227 KB a block.
TEST(BpmaxGpu, WindowsAtTheKernelsBoundariesEqualTheCpu) {
  SCREEN_REQUIRE_GPU();
  const bool h100_class = screen::kernels::bpmax::max_shared_bytes(0) == 227u * 1024;
  std::mt19937 rng(17);
  std::vector<Case> cases{{test::codes(test::random_letters(rng, 23)), test::codes(test::random_letters(rng, 389))},
                          {test::codes(test::random_letters(rng, 19)), test::codes(test::random_letters(rng, 100))},
                          {test::codes(test::random_letters(rng, 21)), test::codes(test::random_letters(rng, 130))}};
  const auto pairs = inputs(cases);
  const PairWeights weight_sets[] = {{3, 2, 1, 1}, {3000, 2000, 1000, 1}};  // 16-bit and 32-bit cells
  for (const PairWeights& w : weight_sets)
    for (int w2 : {127, 128, 129, 130, 144, 145}) {
      const std::string what = "weights " + std::to_string(w.cg) + " W2 " + std::to_string(w2);
      const GpuStats stats = expect_gpu_equals_cpu(pairs, w, w2, GpuOptions{}, what);
      EXPECT_EQ(stats.cpu_pairs + stats.gpu_pairs, pairs.size()) << what;
      if (!h100_class) continue;
      // 32-bit tables of a window above 144 nt need more shared memory than a block has: the CPU takes the
      // pair whose window is that wide (the 389-nt target's; the others' windows are their lengths).
      const std::size_t on_cpu = w.cg == 3000 && w2 > 144 ? 1 : 0;
      EXPECT_EQ(stats.cpu_pairs, on_cpu) << what;
    }
}

// The GPU's slab rows (kernels/bpmax/bpmax_launch.hpp) hold the band from the start rounded down to a
// multiple of 8, in f_row_cells(L2) = L2 + 7 rounded up to 8 cells, copied as whole 8-cell chunks: every
// window residue mod 8 (the last chunk's fill and the chunk count change with it), at small windows and
// across the kernels' limits (129 balanced, 128 one row length), each its own batch, against targets
// whose ends fall at every offset of a chunk (the window's length, one past it, and longer ones).
TEST(BpmaxGpu, SlabRowChunksAtEveryWindowResidueEqualTheCpu) {
  SCREEN_REQUIRE_GPU();
  std::mt19937 rng(26112026);
  std::vector<int> windows;
  for (int w2 = 1; w2 <= 17; ++w2) windows.push_back(w2);
  for (int w2 = 120; w2 <= 137; ++w2) windows.push_back(w2);
  for (int w2 : windows) {
    std::vector<Case> cases;
    for (int m : {w2, w2 + 1, w2 + 3 + w2 % 8, 2 * w2 + 61, 200 + w2 % 8})
      cases.push_back({test::codes(test::random_letters(rng, 5 + (m + w2) % 19)), test::codes(test::random_letters(rng, m))});
    expect_one_gpu_batch_equals_the_cpu(cases, w2);
  }
}

// The patch-up's wide form (192 columns a block, kernels/bpmax/bpmax_patch_up.cu) takes 16-bit batches
// whose windows are at most 128 when its tables fit the device's shared memory; the 64-column form takes
// the rest where its tables fit, the 32-column form where they do not (GPUs with 99 KB a block, and 32-bit
// windows of 129 on an H100).
TEST(BpmaxGpu, PatchUpWidthFollowsTheWindowCellsAndSharedMemory) {
  namespace kb = screen::kernels::bpmax;
  constexpr std::size_t kH100 = 227 * 1024, kSmall = 100 * 1024;
  EXPECT_EQ(kb::patch_tile_width(128, false, kH100), 192);
  EXPECT_EQ(kb::patch_tile_width(9, false, kH100), 192);
  EXPECT_EQ(kb::patch_tile_width(129, false, kH100), 64);
  EXPECT_EQ(kb::patch_tile_width(128, true, kH100), 64);
  EXPECT_EQ(kb::patch_tile_width(64, false, kSmall), 64);
  EXPECT_EQ(kb::patch_tile_width(128, false, kSmall), 32);
  EXPECT_EQ(kb::patch_tile_width(129, true, kH100), 32);
  EXPECT_EQ(kb::patch_tile_width(128, true, kSmall), 64);  // no form fits: the host sends no such batch
}

// The wide patch-up's blocks at their edges: targets ending just before, at and after multiples of 192
// columns (one, two and three blocks, the last one nearly empty or nearly full), for windows whose
// recomputed columns (191 + W2) end inside the next block and at 128; one batch per window.
TEST(BpmaxGpu, WidePatchUpBlockEdgesEqualTheCpu) {
  SCREEN_REQUIRE_GPU();
  std::mt19937 rng(27112026);
  for (int w2 : {5, 64, 121, 128}) {
    std::vector<Case> cases;
    for (int m : {191, 192, 193, 383, 384, 385, 577, 700})
      cases.push_back({test::codes(test::random_letters(rng, 4 + m % 20)), test::codes(test::random_letters(rng, m))});
    expect_one_gpu_batch_equals_the_cpu(cases, w2);
  }
}

// GPUs with less shared memory a block than an H100 (227 KB), emulated by GpuOptions::max_shared_bytes
// (each size where the GPU has at least that much): an A100's 163 KB does not hold the wide patch-up's
// tables (200 KB at W2 = 128), so 16-bit windows from 66 to 128 take the 64-column form with one row
// length, which an H100 never runs otherwise. 99 KB (an L40S or an RTX 4090) holds no 64-column patch-up
// over 89 nt, so 16-bit windows of 90 to 129 take the 32-column form (92 KB at W2 = 128), from 114 on also
// the double reduction without its landing buffer (109 KB with it at W2 = 128). 32-bit cells have no
// double reduction without the landing buffer, so their windows over 73 at 99 KB and over 113 at 163 KB go
// to the CPU (W2 = 80 and 120 cross those edges). Block edges of the 64- and 32-column forms (targets ending
// around multiples of 32), 16- and 32-bit cells; the same results as the CPU.
TEST(BpmaxGpu, SmallerSharedMemoryTakesTheNarrowFormsAndEqualsTheCpu) {
  SCREEN_REQUIRE_GPU();
  const std::size_t device_shared = screen::kernels::bpmax::max_shared_bytes(0);
  if (device_shared < 99u * 1024) GTEST_SKIP() << "this GPU has less than 99 KB of shared memory a block";
  std::mt19937 rng(28112026);
  std::vector<Case> cases;
  for (int m : {31, 33, 63, 64, 65, 95, 97, 127, 128, 129, 250, 700})
    cases.push_back({test::codes(test::random_letters(rng, 4 + m % 20)), test::codes(test::random_letters(rng, m))});
  const auto pairs = inputs(cases);
  const PairWeights weight_sets[] = {{3, 2, 1, 1}, {3000, 2000, 1000, 1}};  // 16-bit and 32-bit cells
  for (const std::size_t kb : {163u, 99u}) {
    if (device_shared < kb * 1024) continue;  // this GPU cannot emulate that size
    for (const PairWeights& w : weight_sets)
      for (int w2 : {5, 64, 80, 120, 121, 128}) {
        GpuOptions options;
        options.max_shared_bytes = kb * 1024;
        const std::string what = std::to_string(kb) + " KB, weights " + std::to_string(w.cg) + ", W2 " + std::to_string(w2);
        const GpuStats stats = expect_gpu_equals_cpu(pairs, w, w2, options, what);
        EXPECT_EQ(stats.gpu_pairs + stats.cpu_pairs, pairs.size()) << what;
        if (w.cg == 3) {  // 16-bit cells: every pair on the GPU at 163 and at 99 KB
          EXPECT_EQ(stats.gpu_pairs, pairs.size()) << what;
        }
        if (w.cg == 3000 && ((kb == 99 && w2 >= 80) || (kb == 163 && w2 >= 120))) {
          EXPECT_LT(stats.gpu_pairs, pairs.size()) << what;
        }
      }
  }
}

// The query window sizes only the single tables' shared memory, not the double reduction's or the
// patch-up's: at 99 KB a block, 32-bit pairs with queries of 18 to 40 nt and W2 = 5 run on the GPU (they
// went to the CPU while the query window was checked against every kernel's needs: 101,426 bytes at 18 nt).
TEST(BpmaxGpu, TheQueryWindowSizesOnlyTheSingleTables) {
  SCREEN_REQUIRE_GPU();
  if (screen::kernels::bpmax::max_shared_bytes(0) < 99u * 1024)
    GTEST_SKIP() << "this GPU has less than 99 KB of shared memory a block";
  std::mt19937 rng(27112026);
  std::vector<Case> cases;
  for (int n : {18, 23, 40})
    for (int m : {30, 300}) cases.push_back({test::codes(test::random_letters(rng, n)), test::codes(test::random_letters(rng, m))});
  const auto pairs = inputs(cases);
  GpuOptions options;
  options.max_shared_bytes = 99u * 1024;
  const GpuStats stats = expect_gpu_equals_cpu(pairs, {3000, 2000, 1000, 1}, 5, options, "99 KB, 32-bit cells, W2 5");
  EXPECT_EQ(stats.gpu_pairs, pairs.size());
}

// Long query windows at the single tables' limit: that kernel holds a window of l1 x (64 + l1 - 1) cells, so
// the longest query window the GPU takes is where shared_bytes_needed crosses the device's shared memory
// (310 nt in 16-bit cells and 211 in 32-bit on a GPU with 227 KB a block). At the limit the pair runs on the
// GPU, one past it on the CPU, and the results equal the CPU path either way. Short targets keep the CPU
// path's side quick (the work grows with the cube of the query window).
TEST(BpmaxGpu, LongQueryWindowsAtTheSingleTablesLimitEqualTheCpu) {
  SCREEN_REQUIRE_GPU();
  namespace kb = screen::kernels::bpmax;
  const std::size_t device_shared = kb::max_shared_bytes(0);
  const bool h100_class = device_shared == 227u * 1024;
  std::mt19937 rng(29112026);
  const PairWeights weight_sets[] = {{3, 2, 1, 1}, {3000, 2000, 1000, 1}};  // 16-bit and 32-bit cells
  for (const PairWeights& w : weight_sets) {
    const int cell = w.cg == 3 ? 2 : 4;
    constexpr int kTarget = 24;  // the longest target below: the windows that size the other kernels are small
    int limit = 0;
    while (kb::shared_bytes_needed(limit + 1, kTarget, cell) <= device_shared) ++limit;
    if (h100_class) {
      EXPECT_EQ(limit, cell == 2 ? 310 : 211);
    }
    ASSERT_GT(limit, 40) << "cell bytes " << cell;
    // The long query with W1 = limit (its windows are the limit), a query as long as the limit, one
    // shorter, against two short targets.
    std::vector<Case> cases{{test::codes(test::random_letters(rng, limit + 9)), test::codes(test::random_letters(rng, kTarget))},
                            {test::codes(test::random_letters(rng, limit)), test::codes(test::random_letters(rng, 17))},
                            {test::codes(test::random_letters(rng, 57)), test::codes(test::random_letters(rng, kTarget))}};
    const auto pairs = inputs(cases);
    for (const int w1 : {limit, limit + 1}) {
      Params p;
      p.weights = w;
      p.query_window = w1;
      GpuStats stats;
      const auto got = interact_pairs_gpu(pairs, p, TracebackMode::all(), GpuOptions{}, &stats);
      const auto want = interact_pairs(pairs, p, TracebackMode::all(), Method::cpu);
      const std::string what = "weights " + std::to_string(w.cg) + " W1 " + std::to_string(w1);
      ASSERT_EQ(got.size(), want.size()) << what;
      for (std::size_t k = 0; k < pairs.size(); ++k) expect_same_site(want[k].site, got[k].site, what + " pair " + std::to_string(k));
      // W1 = limit + 1: only the query longer than the limit has a window past it.
      EXPECT_EQ(stats.cpu_pairs, w1 > limit ? 1u : 0u) << what;
      EXPECT_EQ(stats.gpu_pairs + stats.cpu_pairs, pairs.size()) << what;
    }
  }
}

// Scores at the 16-bit cells' limit: a batch takes 16-bit cells when max_possible_score(L1, L2) =
// ((L1 + L2) / 2) x the largest weight is at most kMax16 (16,383), so that minus infinity (-16,384) plus any
// score stays negative. With CG = 381, 43 + 43 nt is exactly at the limit and 44 + 44 one step past it (32-bit
// cells); a run of G against a run of C pairs every base, so the 43 x 43 site scores kMax16 itself and the
// tables hold values up to it. Random sequences of the same lengths beside them (16-bit and 32-bit batches).
TEST(BpmaxGpu, ScoresAtTheSixteenBitLimitEqualTheCpu) {
  SCREEN_REQUIRE_GPU();
  namespace kb = screen::kernels::bpmax;
  const PairWeights w{381, 2, 1, 1};
  ASSERT_EQ(max_possible_score(43, 43, w), kb::kMax16);
  ASSERT_EQ(max_possible_score(44, 43, w), kb::kMax16);
  ASSERT_GT(max_possible_score(44, 44, w), kb::kMax16);
  std::mt19937 rng(30112026);
  std::vector<Case> cases;
  for (const auto& [n, m] : {std::pair{43, 43}, {43, 44}, {44, 43}, {44, 44}}) {
    cases.push_back({test::codes(std::string(n, 'G')), test::codes(std::string(m, 'C'))});
    cases.push_back({test::codes(test::random_letters(rng, n)), test::codes(test::random_letters(rng, m))});
  }
  const auto pairs = inputs(cases);
  const GpuStats stats = expect_gpu_equals_cpu(pairs, w, 0, GpuOptions{}, "CG 381");
  EXPECT_EQ(stats.gpu_pairs, pairs.size());
  // Every base paired: min(n, m) pairs of weight 381; at 43 + 43 that is the limit itself.
  Params p;
  p.weights = w;
  const auto got = interact_pairs_gpu(pairs, p, TracebackMode::none(), GpuOptions{});
  EXPECT_EQ(got[0].site.score, kb::kMax16);
  EXPECT_EQ(got[2].site.score, kb::kMax16);
  EXPECT_EQ(got[4].site.score, kb::kMax16);
  EXPECT_EQ(got[6].site.score, 44 * 381);
}

// The slabs of each d1 in two groups by query end on two streams (GpuOptions::slab_groups = 2, the default:
// the late group runs a d1 behind the early one and reads its slabs) against one stream and the CPU path:
// every site and traceback equal, whole queries and query windows, pairs of different query lengths (each
// pair has its own split) in one batch, several rounds so that a read that raced a write would show.
TEST(BpmaxGpu, TwoSlabGroupsOnTwoStreamsEqualOneStreamAndTheCpu) {
  SCREEN_REQUIRE_GPU();
  std::mt19937 rng(1122026);
  for (int round = 0; round < 3; ++round)
    for (int w1 : {0, 9}) {
      std::vector<Case> cases;
      std::uniform_int_distribution<int> qlen(2, 30), tlen(150, 700);
      for (int k = 0; k < 8; ++k)
        cases.push_back({test::codes(test::random_letters(rng, qlen(rng))), test::codes(test::random_letters(rng, tlen(rng)))});
      const auto pairs = inputs(cases);
      Params p;
      p.query_window = w1;
      p.target_window = 128;
      GpuOptions one, two;
      one.slab_groups = 1;
      two.slab_groups = 2;
      GpuStats s1, s2;
      const auto a = interact_pairs_gpu(pairs, p, TracebackMode::all(), one, &s1);
      const auto b = interact_pairs_gpu(pairs, p, TracebackMode::all(), two, &s2);
      const auto want = interact_pairs(pairs, p, TracebackMode::all(), Method::cpu);
      EXPECT_EQ(s1.gpu_pairs, pairs.size());
      EXPECT_EQ(s2.gpu_pairs, pairs.size());
      for (std::size_t k = 0; k < pairs.size(); ++k) {
        const std::string what = "round " + std::to_string(round) + " W1 " + std::to_string(w1) + " pair " +
                                 std::to_string(k) + " (" + std::to_string(cases[k].x.size()) + " x " +
                                 std::to_string(cases[k].y.size()) + ")";
        expect_same_site(want[k].site, a[k].site, what + ", one stream");
        expect_same_site(want[k].site, b[k].site, what + ", two groups");
      }
    }
}

// Queries made of few letters or of one motif repeated, where most query intervals repeat an earlier
// one: their slabs are read from the first occurrence (repeated_slabs.hpp), computed once. Query windows
// below the query's length make the sites read repeats too; both slab groupings, 16- and 32-bit cells.
TEST(BpmaxGpu, QueriesWithRepeatedSubstringsEqualTheCpu) {
  SCREEN_REQUIRE_GPU();
  std::mt19937 rng(26112826);
  const auto query = [&](int round) {
    const int n = 2 + static_cast<int>(rng() % 27);
    if (round % 3 == 0) return std::string(static_cast<std::size_t>(n), "ACGU"[rng() % 4]);
    if (round % 3 == 1) {
      const std::string motif = test::random_letters(rng, 1 + static_cast<int>(rng() % 4));
      std::string q;
      while (static_cast<int>(q.size()) < n) q += motif;
      return q.substr(0, static_cast<std::size_t>(n));
    }
    std::string q = test::random_letters(rng, n);
    for (char& c : q) c = c == 'A' || c == 'C' ? 'G' : 'U';  // two letters, GU pairs only
    return q;
  };
  const PairWeights weight_sets[] = {{3, 2, 1, 1}, {3000, 2000, 1000, 1}};  // the second: 32-bit cells
  for (const PairWeights& w : weight_sets)
    for (int w1 : {0, 3, 8})
      for (int groups : {1, 2}) {
        std::vector<Case> cases;
        for (int k = 0; k < 9; ++k)
          cases.push_back({test::codes(query(k)), test::codes(test::random_letters(rng, 40 + static_cast<int>(rng() % 400)))});
        const auto pairs = inputs(cases);
        Params p;
        p.weights = w;
        p.query_window = w1;
        p.target_window = 128;
        GpuOptions options;
        options.slab_groups = groups;
        GpuStats stats;
        const auto got = interact_pairs_gpu(pairs, p, TracebackMode::all(), options, &stats);
        const auto want = interact_pairs(pairs, p, TracebackMode::all(), Method::cpu);
        EXPECT_EQ(stats.gpu_pairs, pairs.size());
        EXPECT_LT(stats.slabs_computed, stats.slabs) << "one-letter queries repeat every substring";
        for (std::size_t k = 0; k < pairs.size(); ++k)
          expect_same_site(want[k].site, got[k].site,
                           "weights " + std::to_string(w.cg) + " W1 " + std::to_string(w1) + " groups " + std::to_string(groups) +
                               " pair " + std::to_string(k) + " (" + std::to_string(cases[k].x.size()) + " x " +
                               std::to_string(cases[k].y.size()) + ")");
      }
}

// Pruned target windows (window_pruning.hpp): the GPU's bounds equal the CPU's, and the pruned sites with
// their tracebacks equal the CPU path's, which computes every window: random, periodic and one-letter targets
// (many windows tie), windows of 16 to 128, 16- and 32-bit cells, whole and windowed queries.
TEST(BpmaxGpu, PrunedWindowsEqualTheCpu) {
  SCREEN_REQUIRE_GPU();
  std::mt19937 rng(28112026);
  const auto target = [&](int m, int kind) {
    if (kind == 0) return test::random_letters(rng, m);
    if (kind == 1) {
      const std::string motif = test::random_letters(rng, 1 + static_cast<int>(rng() % 9));
      std::string t;
      while (static_cast<int>(t.size()) < m) t += motif;
      return t.substr(0, static_cast<std::size_t>(m));
    }
    return std::string(static_cast<std::size_t>(m), "ACGU"[rng() % 4]);
  };
  const PairWeights weight_sets[] = {{3, 2, 1, 1}, {3000, 2000, 1000, 1}};  // the second: 32-bit cells
  long long pruned = 0, kept = 0, windows = 0;
  for (const PairWeights& w : weight_sets)
    for (int w2 : {16, 64, 128})
      for (int w1 : {0, 5}) {
        std::vector<Case> cases;
        for (int k = 0; k < 8; ++k) {
          const int n = 2 + static_cast<int>(rng() % 30);
          const int m = kPruneMinWindows * w2 + static_cast<int>(rng() % 2500);
          cases.push_back({test::codes(test::random_letters(rng, n)), test::codes(target(m, k % 4 == 3 ? 2 : k % 3 == 2 ? 1 : 0))});
        }
        const auto pairs = inputs(cases);
        Params p;
        p.weights = w;
        p.query_window = w1;
        p.target_window = w2;
        const std::string what = "weights " + std::to_string(w.cg) + " W1 " + std::to_string(w1) + " W2 " + std::to_string(w2);
        const auto gpu_bounds = window_upper_bounds_gpu(pairs, p);
        for (std::size_t k = 0; k < pairs.size(); ++k)
          EXPECT_EQ(gpu_bounds[k], window_upper_bounds(cases[k].x.data(), static_cast<int>(cases[k].x.size()), cases[k].y.data(),
                                                       static_cast<int>(cases[k].y.size()), p))
              << what << " pair " << k;
        GpuStats stats;
        const auto got = interact_pairs_gpu(pairs, p, TracebackMode::all(), GpuOptions{}, &stats);
        const auto want = interact_pairs(pairs, p, TracebackMode::all(), Method::cpu);
        EXPECT_EQ(stats.gpu_pairs, pairs.size());
        EXPECT_EQ(stats.pruning.pairs, static_cast<long long>(pairs.size())) << what;
        pruned += stats.pruning.pairs;
        kept += stats.pruning.windows_kept;
        windows += stats.pruning.windows;
        for (std::size_t k = 0; k < pairs.size(); ++k)
          expect_same_site(want[k].site, got[k].site,
                           what + " pair " + std::to_string(k) + " (" + std::to_string(cases[k].x.size()) + " x " +
                               std::to_string(cases[k].y.size()) + ")");
        GpuOptions whole;
        whole.prune_windows = false;
        GpuStats whole_stats;
        const auto all = interact_pairs_gpu(pairs, p, TracebackMode::none(), whole, &whole_stats);
        EXPECT_EQ(whole_stats.pruning.pairs, 0);
        for (std::size_t k = 0; k < pairs.size(); ++k) EXPECT_EQ(all[k].site.score, got[k].site.score) << what;
      }
  EXPECT_LT(kept, windows) << "no window was skipped: the test would not see a wrong skip";
  std::printf("pruned pairs %lld: %lld of %lld windows kept\n", pruned, kept, windows);
}

// A memory cap that holds only the smaller tables: those are cut into several GPU batches, the larger
// pairs go to the CPU, and the results do not change.
TEST(BpmaxGpu, PairsOverTheMemoryBudgetGoToTheCpu) {
  SCREEN_REQUIRE_GPU();
  std::mt19937 rng(11);
  Params p;
  p.target_window = 32;
  std::vector<Case> cases;
  for (int k = 0; k < 6; ++k)
    cases.push_back({test::codes(test::random_letters(rng, 20)), test::codes(test::random_letters(rng, 300 + 50 * k))});
  const auto pairs = inputs(cases);
  GpuOptions capped;
  capped.max_bytes = gpu_table_bytes(20, 400, p);  // pairs 0-2 fit one at a time, 3-5 do not
  GpuStats stats;
  const auto top = TracebackMode::top(10);
  const auto got = interact_pairs_gpu(pairs, p, top, capped, &stats);
  const auto want = interact_pairs(pairs, p, top, Method::cpu);
  for (std::size_t k = 0; k < pairs.size(); ++k) expect_same_site(want[k].site, got[k].site, std::to_string(k));
  EXPECT_EQ(stats.gpu_pairs, 3u);
  EXPECT_EQ(stats.cpu_pairs, 3u);
}

// resources.gpu_memory_fraction 1 and more pairs than the GPU holds: the batches' tables leave room for the
// buffers beside them (codes, descriptors, work lists, sites), so nothing runs out of memory, and every site
// equals the site of the same pair scored alone.
TEST(BpmaxGpu, AWholeGpuMemoryFractionLeavesRoomBesideTheTables) {
  SCREEN_REQUIRE_GPU();
  Params p;
  p.target_window = 128;
  const int n = 23, m = 5000;
  const std::size_t usable = gpu::list_devices().at(0).free_memory;
  const std::size_t count = usable / gpu_table_bytes(n, m, p) * 5 / 4 + 1;  // two batches, the first full
  std::mt19937 rng(1130);
  constexpr std::size_t kDistinct = 4;
  std::vector<Case> distinct;
  for (std::size_t k = 0; k < kDistinct; ++k)
    distinct.push_back({test::codes(test::random_letters(rng, n)), test::codes(test::random_letters(rng, m))});
  std::vector<Case> cases;
  for (std::size_t k = 0; k < count; ++k) cases.push_back(distinct[k % kDistinct]);
  GpuOptions whole;
  whole.memory_fraction = 1.0;
  GpuStats stats;
  std::vector<PairResult> got;
  ASSERT_NO_THROW(got = interact_pairs_gpu(inputs(cases), p, TracebackMode::none(), whole, &stats)) << count << " pairs";
  EXPECT_EQ(stats.gpu_pairs, count);
  const auto alone = interact_pairs_gpu(inputs(distinct), p, TracebackMode::none(), GpuOptions{});
  for (std::size_t k = 0; k < count; ++k)
    if (got[k].site.score != alone[k % kDistinct].site.score || got[k].site.site_i2 != alone[k % kDistinct].site.site_i2) {
      ADD_FAILURE() << "pair " << k << ": score " << got[k].site.score << " at " << got[k].site.site_i2 << ", alone "
                    << alone[k % kDistinct].site.score << " at " << alone[k % kDistinct].site.site_i2;
      break;
    }
}

}  // namespace
}  // namespace screen::bpmax
