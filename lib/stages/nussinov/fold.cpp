#include "stages/nussinov/fold.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <exception>

#include "common/error.hpp"
#include "seq/sequence_set.hpp"
#include "stages/nussinov/cpu.hpp"
#include "stages/nussinov/cuda.hpp"

namespace screen::nussinov {

Method parse_method(const std::string& text) {
  if (text == "auto" || text == "automatic") return Method::automatic;
  if (text == "reference") return Method::reference;
  if (text == "cpu") return Method::cpu;
  if (text == "four-russians" || text == "four_russians") return Method::four_russians;
  if (text == "gpu") return Method::gpu;
  throw UsageError(fmt::format("unknown Nussinov method '{}' (auto, reference, cpu, four-russians, gpu)", text));
}

const char* method_name(Method m) {
  switch (m) {
    case Method::automatic: return "auto";
    case Method::reference: return "reference";
    case Method::cpu: return "cpu";
    case Method::four_russians: return "four-russians";
    case Method::gpu: return "gpu";
  }
  return "?";
}

Method choose_cpu_method(int /*n*/, const Params& /*p*/) {
  // Measured with `screen bench nussinov` (README, Nussinov): the vectorised max-plus of cpu.cpp is
  // faster than the Four-Russians table lookups at every size tried (2,000 to 6,000 nt, 1 and 2
  // threads), so the automatic choice is the fast path; Four-Russians stays forceable.
  return Method::cpu;
}

std::uint64_t fold_memory_bytes(int n, const Params& p, Method method) {
  if (n <= 0) return 0;
  if (method == Method::automatic) method = choose_cpu_method(n, p);
  const std::uint64_t cells = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n);
  if (method == Method::reference) return 2 * cells * sizeof(std::int32_t);  // the table and its by-column copy
  if (method == Method::four_russians) return mirror_table_bytes(n, p);
  return cpu_table_bytes(n, p);
}

FoldResult fold(const std::uint8_t* s, int n, const Params& p, bool with_traceback, Method method, int threads) {
  if (n < 0) throw UsageError(fmt::format("sequence length {} is negative", n));
  if (method == Method::automatic) method = choose_cpu_method(n, p);
  switch (method) {
    case Method::reference: return fold_reference(s, n, p, with_traceback);
    case Method::cpu: return fold_cpu(s, n, p, with_traceback, threads);
    case Method::four_russians: return fold_four_russians(s, n, p, with_traceback, threads);
    case Method::gpu: return fold_gpu_long(s, n, p, with_traceback);
    case Method::automatic: break;
  }
  throw Error(ExitCode::internal, "nussinov::fold: no method");
}

std::vector<FoldResult> fold_batch(const std::vector<const std::uint8_t*>& seqs, const std::vector<int>& lengths,
                                   const Params& p, bool with_traceback, Method method, int threads) {
  if (seqs.size() != lengths.size())
    throw Error(ExitCode::internal, "nussinov::fold_batch: seqs and lengths differ in size");
  const std::size_t count = seqs.size();
  std::vector<FoldResult> out(count);
  if (method == Method::gpu) {
    out = fold_gpu_batch(seqs, lengths, p, with_traceback);
    if (out.size() != count) throw Error(ExitCode::internal, "fold_gpu_batch returned a wrong number of results");
    return out;
  }
  const int nthreads = threads > 0 ? threads : omp_get_max_threads();
  std::vector<std::size_t> shorts, longs;
  for (std::size_t k = 0; k < count; ++k) (lengths[k] >= kLongSequence ? longs : shorts).push_back(k);
  // Longest first, so the dynamic schedule ends with the cheap ones.
  std::stable_sort(shorts.begin(), shorts.end(), [&](std::size_t a, std::size_t b) { return lengths[a] > lengths[b]; });
  for (std::size_t k : longs) out[k] = fold(seqs[k], lengths[k], p, with_traceback, method, nthreads);
  // Exceptions may not leave an OpenMP region: keep the first and rethrow it after.
  std::exception_ptr error;
  const long long nshort = static_cast<long long>(shorts.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads) if (nthreads > 1 && nshort > 1)
  for (long long t = 0; t < nshort; ++t) {
    const std::size_t k = shorts[static_cast<std::size_t>(t)];
    try {
      out[k] = fold(seqs[k], lengths[k], p, with_traceback, method, 1);
    } catch (...) {
#pragma omp critical(screen_nussinov_batch_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
  return out;
}

std::vector<FoldResult> fold_batch(const seq::SequenceSet& set, const Params& p, bool with_traceback, Method method,
                                   int threads, std::size_t first, std::size_t last) {
  last = std::min(last, set.size());
  std::vector<const std::uint8_t*> seqs;
  std::vector<int> lengths;
  for (std::size_t k = first; k < last; ++k) {
    seqs.push_back(set.codes(k));
    lengths.push_back(static_cast<int>(set.length(k)));
  }
  return fold_batch(seqs, lengths, p, with_traceback, method, threads);
}

}  // namespace screen::nussinov
