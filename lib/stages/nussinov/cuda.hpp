#pragma once
// Host side of the Nussinov CUDA path (implemented in cuda.cpp over kernels/nussinov/).
// Built only with CUDA; without it, gpu_available() is false and the fold functions throw
// ResourceError saying the build has no CUDA.
#include <cstdint>
#include <future>
#include <memory>
#include <vector>

#include "stages/nussinov/nussinov_defs.hpp"
#include "stages/nussinov/reference.hpp"

namespace screen::nussinov {

bool gpu_available();

// One long sequence over the whole GPU (tiled max-plus, packed upper triangle, 16- or 32-bit cells).
FoldResult fold_gpu_long(const std::uint8_t* s, int n, const Params& p, bool with_traceback, int device = 0);

// Many sequences of mixed lengths folded in few launches. seqs[i] points to lengths[i] codes.
std::vector<FoldResult> fold_gpu_batch(const std::vector<const std::uint8_t*>& seqs, const std::vector<int>& lengths,
                                       const Params& p, bool with_traceback, int device = 0);

// The folds of fold_gpu_batch_later: the scores are final; the structures are there once wait()
// returns, which rethrows the first error of their tracebacks.
// Dropping it waits for the tracebacks too (they write into its results and read the sequences).
class PendingFolds {
 public:
  explicit PendingFolds(std::size_t count) : results_(std::make_shared<std::vector<FoldResult>>(count)) {}
  PendingFolds(const PendingFolds&) = delete;
  PendingFolds& operator=(const PendingFolds&) = delete;
  ~PendingFolds();
  std::vector<FoldResult>& wait();
  // For the folding code: the results the tracebacks write into, and their futures.
  const std::shared_ptr<std::vector<FoldResult>>& results() const { return results_; }
  void add(std::shared_future<void> traceback) { tracebacks_.push_back(std::move(traceback)); }

 private:
  std::shared_ptr<std::vector<FoldResult>> results_;
  std::vector<std::shared_future<void>> tracebacks_;
};

// fold_gpu_batch that returns once the GPU is done: the structures are traced on a thread beside the
// caller's next GPU work (the tracebacks of one calling thread's groups run one group after another, so
// that at most two groups' tables are held). The sequences must stay valid until wait() returns.
std::shared_ptr<PendingFolds> fold_gpu_batch_later(const std::vector<const std::uint8_t*>& seqs,
                                                   const std::vector<int>& lengths, const Params& p,
                                                   bool with_traceback, int device = 0);

}  // namespace screen::nussinov
