#pragma once
// The batch entry point of the BPMax stage: score many (query, target) pairs with one code path,
// results in deterministic (query, target) order, tracebacks on request.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "stages/bpmax/reference.hpp"

namespace screen::seq {
class SequenceSet;
}

namespace screen::bpmax {

enum class Method {
  automatic,  // the CPU fast path, skipping the target windows that cannot hold the site (window_pruning.hpp)
  reference,  // reference.cpp, the definition in code (slow)
  cpu,        // cpu.cpp, every window
};

// "auto", "reference", "cpu" (UsageError otherwise) and back.
Method parse_method(const std::string& text);
const char* method_name(Method m);

// Which pairs get a traceback (SiteResult::structure).
struct TracebackMode {
  enum class Kind { none, top, all };
  Kind kind = Kind::none;
  long long threshold = 0;  // top: pairs whose site score (units of 1/scale) is >= threshold

  static TracebackMode none() { return {}; }
  static TracebackMode all() { return {Kind::all, 0}; }
  static TracebackMode top(long long threshold_units) { return {Kind::top, threshold_units}; }
  bool wants(long long score) const { return kind == Kind::all || (kind == Kind::top && score >= threshold); }
};

// One strand of a pair: codes and length (codes need not outlive the call beyond it).
struct Strand {
  const std::uint8_t* codes = nullptr;
  int length = 0;
};

struct PairResult {
  std::size_t query_index = 0;
  std::size_t target_index = 0;
  SiteResult site;  // score, site intervals (target: forward 1-based), structure when traced
};

// One pair through one method. threads as for CpuTables.
SiteResult interact_one(Strand query, Strand target, const Params& p, bool with_traceback, Method method,
                        int threads = 0);

// An explicit list of pairs; result k is pairs[k]'s (with its query_index and target_index).
// Parallel across pairs for small pairs (one thread each: term-1 work below kSmallPairUpdates
// and tables below kSmallPairBytes), within a pair for large ones; the results do not depend on
// `threads`.
constexpr double kSmallPairUpdates = 2e8;
constexpr std::size_t kSmallPairBytes = std::size_t(256) << 20;
struct PairInput {
  Strand query, target;
  std::size_t query_index = 0, target_index = 0;
};
std::vector<PairResult> interact_pairs(const std::vector<PairInput>& pairs, const Params& p, TracebackMode traceback,
                                       Method method = Method::automatic, int threads = 0);

// Every query with every target, in (query, target) order.
std::vector<PairResult> interact_batch(const std::vector<Strand>& queries, const std::vector<Strand>& targets,
                                       const Params& p, TracebackMode traceback, Method method = Method::automatic,
                                       int threads = 0);
std::vector<PairResult> interact_batch(const seq::SequenceSet& queries, const seq::SequenceSet& targets,
                                       const Params& p, TracebackMode traceback, Method method = Method::automatic,
                                       int threads = 0);

}  // namespace screen::bpmax
