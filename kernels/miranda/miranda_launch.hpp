#pragma once
// miRanda candidate scan on the GPU: the launcher, declared in plain C++ so that
// lib/stages/miranda/cuda.cpp (g++) can call it.
//
// Work layout. A scan covers one "batch" of the target stream: the non-empty targets laid end to end
// (target k occupies positions starts[k] .. starts[k+1]-1, relative to the batch's first uploaded
// code). The batch reports positions report_begin .. report_end-1; they are cut into "lanes" of
// `quota` consecutive positions, the same cuts for every query. A lane may cross target borders
// (many short targets share one lane: its DP state is reset to the zero boundary at each border) and
// may start in the middle of a target: it then starts computing at ws = max(target start, first
// reported position - warm) from a zero boundary (warm >= max_positive_span + 2, the CPU scan's
// rule: positive DP values depend only on the max_positive_span columns before them, so the reported
// cells are exact and each cell is reported by the one lane that holds its position). Warm-ups may
// reach before report_begin: the batch's codes start at least max warm positions earlier (or at the
// target's start).
//
// A block is one warp: one query against kLanesPerBlock consecutive lanes, two per thread (the two
// halves of 16-bit packed registers).
//
// Rows. The query's rows sit at the bottom of a compile-time row array of R rows (R: 24, 32, 64 or
// 128; row i of the query is array row R - lq + i - 1); the rows above it score 0 and stay <= 0, so
// they act as the zero row 0. The seed rows (L3 < i < Lq) then always are array rows R-8..R-2.
#include <cstddef>
#include <cstdint>

#include "stages/miranda/miranda_defs.hpp"

namespace screen::kernels::miranda {

constexpr int kLanesPerBlock = 64;  // 32 threads x 2 lanes
constexpr int kMaxGpuQueryLength = 128;

// A candidate cell as the kernel reports it: the query (index into the scan's query arrays), the
// target (index k of the batch's starts), target column j (1-based) and row i, best score and state.
struct RawCandidate {
  std::uint32_t query = 0;
  std::uint32_t target = 0;
  std::int32_t j = 0;
  std::uint32_t packed = 0;  // score << 10 | i << 2 | state (score < 2^15 and i <= 255 when 16-bit exact)
};
constexpr std::uint32_t pack_candidate(int score, int i, int state) {
  return (static_cast<std::uint32_t>(score) << 10) | (static_cast<std::uint32_t>(i) << 2) |
         static_cast<std::uint32_t>(state);
}
constexpr int candidate_score(std::uint32_t p) { return static_cast<int>(p >> 10); }
constexpr int candidate_row(std::uint32_t p) { return static_cast<int>((p >> 2) & 0xFFu); }
constexpr int candidate_state(std::uint32_t p) { return static_cast<int>(p & 3u); }

// Everything one launch needs, already on the device (pointers are device pointers).
struct ScanArgs {
  const std::uint8_t* query_codes = nullptr;    // all queries, concatenated (codes 0..4)
  const std::uint64_t* query_offset = nullptr;  // [queries]
  const std::int32_t* query_length = nullptr;   // [queries], each 1..kMaxGpuQueryLength
  const std::int32_t* query_warm = nullptr;     // [queries] warm-up columns
  const std::uint32_t* launch_queries = nullptr;  // the queries of this launch (one row variant)
  std::uint32_t blocks_per_query = 1;
  std::uint32_t n_blocks = 0;                   // launch queries x blocks_per_query
  const std::uint8_t* codes = nullptr;          // the batch's target codes (0..4), position p at codes[p]
  const std::int32_t* starts = nullptr;         // [n_targets + 1]; may be negative (target begun earlier)
  std::uint32_t n_targets = 0;
  std::int32_t report_begin = 0, report_end = 0;  // positions reported (report_end <= starts[n_targets])
  std::int32_t quota = 1;                       // reported positions per lane
  int rows = 32;                                // the variant: 24, 32, 64 or 128
  ::screen::miranda::ScoreModel model;
  int threshold = 1;                            // max(model.threshold, 1)
  RawCandidate* out = nullptr;                  // [capacity]
  std::uint32_t capacity = 0;
  unsigned long long* count = nullptr;  // candidates found (may exceed capacity: then retry larger)
};

// Smallest row variant (24, 32, 64 or 128) holding a query of length lq; 0 when none does.
int rows_variant(int lq);

// Launches the scan on `stream` (asynchronous; the caller synchronizes and reads *count).
void launch_scan(const ScanArgs& args, void* stream);

}  // namespace screen::kernels::miranda
