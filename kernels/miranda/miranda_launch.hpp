#pragma once
// miRanda candidate scan on the GPU: the launcher, declared in plain C++ so that
// lib/stages/miranda/cuda.cpp (g++) can call it.
//
// Work layout. A "chunk" reports target columns rb..re of one target; the thread that owns it starts
// computing at column ws = max(1, rb - warm) from a zero boundary (warm >= max_positive_span + 2, the
// CPU scan's rule: positive DP values depend only on the max_positive_span columns before them, so
// the reported cells are exact and each cell is reported by the one chunk that holds its column).
// A "block" is one warp: one query against kChunksPerBlock consecutive chunks, two per thread (the
// two halves of 16-bit packed registers). Chunks with re < rb are padding.
//
// Rows. The query's rows sit at the bottom of a compile-time row array of kRowsMax(variant) rows
// (row i of the query is array row R - lq + i - 1); the rows above it score 0 and stay <= 0, so
// they act as the zero row 0. The seed rows (L3 < i < Lq) then always are array rows R-8..R-2.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "stages/miranda/miranda_defs.hpp"

namespace screen::kernels::miranda {

constexpr int kChunksPerBlock = 64;   // 32 threads x 2 chunks
constexpr int kMaxGpuQueryLength = 64;

struct Chunk {
  std::uint32_t target = 0;
  std::int32_t rb = 1, re = 0;  // reported columns (1-based, inclusive); re < rb: padding
};

// One warp's work: query `query` against chunks chunk0 .. chunk0 + kChunksPerBlock - 1.
struct Block {
  std::uint32_t query = 0;
  std::uint32_t chunk0 = 0;
};

// A candidate cell as the kernel reports it: the block's query, the chunk (-> target), row i,
// column j, best score and best state (kA or kC).
struct RawCandidate {
  std::uint32_t query = 0;
  std::uint32_t chunk = 0;
  std::int32_t i = 0;
  std::int32_t j = 0;
  std::int32_t score_state = 0;  // score * 4 + state
};

// Everything one scan needs, already on the device (pointers are device pointers).
struct ScanArgs {
  const std::uint8_t* query_codes = nullptr;   // all queries, concatenated
  const std::uint64_t* query_offset = nullptr;  // [queries]
  const std::int32_t* query_length = nullptr;   // [queries], each 1..kMaxGpuQueryLength
  const std::int32_t* query_warm = nullptr;     // [queries] warm-up columns
  const std::uint8_t* target_codes = nullptr;   // all targets, concatenated
  const std::uint64_t* target_offset = nullptr;  // [targets]
  const Chunk* chunks = nullptr;
  const Block* blocks = nullptr;
  std::uint32_t n_blocks = 0;
  int rows = 32;                 // the variant: 24, 32 or 64 (every query of the launch fits)
  ::screen::miranda::ScoreModel model;
  int threshold = 1;             // max(model.threshold, 1)
  RawCandidate* out = nullptr;   // [capacity]
  std::uint32_t capacity = 0;
  unsigned long long* count = nullptr;  // candidates found (may exceed capacity: then retry larger)
};

// Smallest row variant (24, 32 or 64) holding a query of length lq; 0 when none does.
int rows_variant(int lq);

// Launches the scan on `stream` (asynchronous; the caller synchronizes and reads *count).
void launch_scan(const ScanArgs& args, void* stream);

}  // namespace screen::kernels::miranda
