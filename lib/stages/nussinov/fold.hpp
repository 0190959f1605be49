#pragma once
// The one entry point of the Nussinov stage: pick a code path (or let it be picked) and fold one
// sequence or a batch. Every path gives the reference's score and structure exactly.
#include <cstdint>
#include <string>
#include <vector>

#include "stages/nussinov/nussinov_defs.hpp"
#include "stages/nussinov/reference.hpp"

namespace screen::seq {
class SequenceSet;
}

namespace screen::nussinov {

enum class Method {
  automatic,      // the fastest CPU path for the parameters (see choose_cpu_method); never the GPU
  reference,      // reference.cpp, the definition in code (O(n^2) memory, slow)
  cpu,            // cpu.cpp, tiled + vectorised + OpenMP
  four_russians,  // four_russians.cpp, unit weights only (UsageError otherwise)
  gpu,            // cuda.hpp (ResourceError when built without CUDA or no GPU)
};

// "auto", "reference", "cpu", "four-russians", "gpu" (UsageError on anything else) and back.
Method parse_method(const std::string& text);
const char* method_name(Method m);

// What Method::automatic runs for a sequence of n bases under p (never automatic or gpu).
Method choose_cpu_method(int n, const Params& p);

// Bytes of host memory `method` needs to fold a sequence of n bases (its tables; automatic: the
// method it picks). The GPU path keeps a host copy of the table for the traceback, as the CPU does.
std::uint64_t fold_memory_bytes(int n, const Params& p, Method method);

// One sequence. threads <= 0: OpenMP's default; used by the CPU paths inside the sequence.
FoldResult fold(const std::uint8_t* s, int n, const Params& p, bool with_traceback, Method method = Method::automatic,
                int threads = 0);

// Many sequences, results in input order. CPU: sequences shorter than kLongSequence run in parallel,
// one thread each (OpenMP over sequences); longer ones run one at a time with all threads inside.
// GPU: one fold_gpu_batch call (long sequences too: several long folds at once fill the GPU better
// than one at a time, e.g. n = 10,000 alone runs at a third of the large folds' rate).
constexpr int kLongSequence = 1500;
std::vector<FoldResult> fold_batch(const std::vector<const std::uint8_t*>& seqs, const std::vector<int>& lengths,
                                   const Params& p, bool with_traceback, Method method = Method::automatic,
                                   int threads = 0);

// Records [first, last) of a SequenceSet (last clamped to its size; last = -1: to the end).
std::vector<FoldResult> fold_batch(const seq::SequenceSet& set, const Params& p, bool with_traceback,
                                   Method method = Method::automatic, int threads = 0, std::size_t first = 0,
                                   std::size_t last = static_cast<std::size_t>(-1));

}  // namespace screen::nussinov
