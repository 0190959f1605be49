// align_batch: queries x targets on the CPU with OpenMP.
//
// Fast path: the targets form one stream of columns, cut into blocks (parts of long targets, or
// runs of short ones). Phase 1 scans every (query, block) unit with the SIMD scan (dynamic schedule)
// and keeps its candidate cells (Method::gpu: one GPU scan of every query against every target
// instead); phase 2 gathers each pair's candidates (a target cut across blocks
// collects them from several units) and runs finish_pair on the pairs that have any.
#include "stages/miranda/align_batch.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <utility>

#include "common/error.hpp"
#include "stages/miranda/cpu.hpp"
#include "stages/miranda/cuda.hpp"

namespace screen::miranda {

Method parse_method(const std::string& text) {
  if (text == "reference") return Method::reference;
  if (text == "cpu") return Method::cpu;
  throw UsageError("miranda method must be reference or cpu, not '" + text + "'");
}

const char* method_name(Method m) {
  return m == Method::reference ? "reference" : m == Method::cpu ? "cpu" : "gpu";
}

namespace {

// The first exception thrown inside a parallel region, rethrown after it.
class FirstError {
 public:
  void capture() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!error_) error_ = std::current_exception();
    failed_.store(true);
  }
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  void rethrow() {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr error_;
  std::atomic<bool> failed_{false};
};

struct Views {
  std::vector<SeqView> queries, targets;
};

SeqView view_of(const seq::SequenceSet& set, std::size_t k, const std::vector<std::string>* letters) {
  SeqView v{set.codes(k), set.length(k), nullptr};
  if (letters != nullptr) {
    if (letters->size() != set.size() || (*letters)[k].size() != set.length(k))
      throw Error(ExitCode::internal, "miranda: display letters do not match the sequences");
    v.letters = (*letters)[k].data();
  }
  return v;
}

// Hits of one pair, tagged with its position in the batch's pair order.
struct Tagged {
  std::size_t order = 0;
  PairResult result;
};

std::vector<PairResult> merge(std::vector<std::vector<Tagged>>& per_thread) {
  std::vector<Tagged> all;
  for (auto& v : per_thread)
    for (auto& t : v) all.push_back(std::move(t));
  std::sort(all.begin(), all.end(), [](const Tagged& a, const Tagged& b) { return a.order < b.order; });
  std::vector<PairResult> out;
  out.reserve(all.size());
  for (auto& t : all) out.push_back(std::move(t.result));
  return out;
}

bool keep(const PairResult& r) { return !r.hits.empty() || r.truncated; }

std::vector<PairResult> run_reference(const Views& v, const Params& params, std::size_t q0, std::size_t q1,
                                      int threads, const BatchOptions& o) {
  const std::size_t nt = v.targets.size();
  const long long pairs = static_cast<long long>((q1 - q0) * nt);
  std::vector<std::vector<Tagged>> found(static_cast<std::size_t>(threads));
  std::atomic<std::size_t> done{0};
  FirstError error;
#pragma omp parallel num_threads(threads)
  {
    auto& mine = found[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(dynamic, 1)
    for (long long p = 0; p < pairs; ++p) {
      if (error.failed()) continue;
      try {
        const std::size_t q = q0 + static_cast<std::size_t>(p) / nt, t = static_cast<std::size_t>(p) % nt;
        PairResult r = align_pair(v.queries[q], v.targets[t], params, q, t);
        if (keep(r)) mine.push_back(Tagged{static_cast<std::size_t>(p), std::move(r)});
        const std::size_t d = done.fetch_add(1) + 1;
        if (o.progress && omp_get_thread_num() == 0) o.progress(d);
      } catch (...) {
        error.capture();
      }
    }
  }
  error.rethrow();
  return merge(found);
}

// A block of the target stream and the number of targets whose last column it holds.
struct Block {
  std::vector<ScanPiece> pieces;
  std::size_t targets_completed = 0;
};

std::vector<Block> make_blocks(const Views& v, std::size_t queries, int threads) {
  long long total = 0;
  for (const SeqView& t : v.targets) total += static_cast<long long>(t.length);
  // Enough units for the threads (about 8 each), blocks long enough that lane warm-ups stay cheap
  // and short enough that a block's step array stays small.
  const long long wanted = std::max<long long>(1, (8LL * threads + static_cast<long long>(queries) - 1) /
                                                      static_cast<long long>(std::max<std::size_t>(queries, 1)));
  const long long size = std::clamp<long long>((total + wanted - 1) / wanted, 1LL << 12, 1LL << 17);
  std::vector<Block> blocks(1);
  long long fill = 0;
  for (std::size_t t = 0; t < v.targets.size(); ++t) {
    const long long len = static_cast<long long>(v.targets[t].length);
    long long pos = 1;
    while (pos <= len) {
      if (fill >= size) {
        blocks.emplace_back();
        fill = 0;
      }
      const long long take = std::min(len - pos + 1, size - fill);
      blocks.back().pieces.push_back(ScanPiece{t, static_cast<int>(pos), static_cast<int>(pos + take - 1)});
      pos += take;
      fill += take;
    }
    ++blocks.back().targets_completed;  // (empty targets complete where they stand)
  }
  return blocks;
}

// One pair's candidate cells, for phase 2.
struct Task {
  std::size_t q = 0, t = 0;
  std::vector<Candidate> candidates;
};

std::vector<PairResult> finish_tasks(const Views& v, const Params& params, const ScoreModel& model, std::size_t q0,
                                     int threads, std::vector<Task>& tasks);

std::vector<PairResult> run_cpu(const Views& v, const Params& params, std::size_t q0, std::size_t q1, int threads,
                                const BatchOptions& o) {
  const ScoreModel model = make_score_model(params);
  const std::size_t nq = q1 - q0;
  const std::vector<Block> blocks = make_blocks(v, nq, threads);
  const std::size_t nb = blocks.size();
  const long long units = static_cast<long long>(nq * nb);
  std::vector<std::vector<TargetCandidate>> unit_out(static_cast<std::size_t>(units));
  std::atomic<std::size_t> done{0};
  FirstError error;

  // Phase 1: scan.
#pragma omp parallel num_threads(threads)
  {
    ScanWorkspace ws;
#pragma omp for schedule(dynamic, 1)
    for (long long u = 0; u < units; ++u) {
      if (error.failed()) continue;
      try {
        const std::size_t q = q0 + static_cast<std::size_t>(u) / nb, b = static_cast<std::size_t>(u) % nb;
        const Block& block = blocks[b];
        scan_candidates(v.queries[q], v.targets.data(), block.pieces.data(), block.pieces.size(), model, o.isa,
                        unit_out[static_cast<std::size_t>(u)], ws);
        const std::size_t d = done.fetch_add(block.targets_completed) + block.targets_completed;
        if (o.progress && omp_get_thread_num() == 0) o.progress(d);
      } catch (...) {
        error.capture();
      }
    }
  }
  error.rethrow();

  // Each pair's candidates, pairs in (query, target) order.
  std::vector<Task> tasks;
  for (std::size_t qk = 0; qk < nq; ++qk) {
    std::vector<TargetCandidate> all;
    for (std::size_t b = 0; b < nb; ++b) {
      auto& u = unit_out[qk * nb + b];
      all.insert(all.end(), u.begin(), u.end());
      std::vector<TargetCandidate>().swap(u);
    }
    std::stable_sort(all.begin(), all.end(),
                     [](const TargetCandidate& a, const TargetCandidate& b) { return a.target < b.target; });
    for (std::size_t k = 0; k < all.size();) {
      Task task;
      task.q = q0 + qk;
      task.t = all[k].target;
      for (; k < all.size() && all[k].target == task.t; ++k) task.candidates.push_back(all[k].cand);
      tasks.push_back(std::move(task));
    }
  }
  return finish_tasks(v, params, model, q0, threads, tasks);
}

std::vector<PairResult> finish_tasks(const Views& v, const Params& params, const ScoreModel& model, std::size_t q0,
                                     int threads, std::vector<Task>& tasks) {
  const std::size_t nt = v.targets.size();
  FirstError error;
  // Phase 2: tracebacks and hits.
  std::vector<std::vector<Tagged>> found(static_cast<std::size_t>(threads));
  const long long n_tasks = static_cast<long long>(tasks.size());
#pragma omp parallel num_threads(threads)
  {
    auto& mine = found[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(dynamic, 1)
    for (long long k = 0; k < n_tasks; ++k) {
      if (error.failed()) continue;
      try {
        Task& task = tasks[static_cast<std::size_t>(k)];
        PairResult r = finish_pair(v.queries[task.q], v.targets[task.t], params, model, std::move(task.candidates),
                                   task.q, task.t);
        if (keep(r)) mine.push_back(Tagged{(task.q - q0) * nt + task.t, std::move(r)});
      } catch (...) {
        error.capture();
      }
    }
  }
  error.rethrow();
  return merge(found);
}

// Phase 1 on the GPU: every query of the range against every target in one scan.
std::vector<PairResult> run_gpu(const Views& v, const Params& params, std::size_t q0, std::size_t q1, int threads,
                                const BatchOptions& o) {
  const ScoreModel model = make_score_model(params);
  GpuScanOptions go;
  go.device = o.gpu_device;
  go.chunk_columns = o.gpu_chunk_columns;
  std::vector<PairCandidates> found =
      scan_candidates_gpu(v.queries.data() + q0, q1 - q0, v.targets.data(), v.targets.size(), model, go);
  if (o.progress) o.progress((q1 - q0) * v.targets.size());
  std::vector<Task> tasks;
  tasks.reserve(found.size());
  for (PairCandidates& p : found) tasks.push_back(Task{q0 + p.query, p.target, std::move(p.candidates)});
  return finish_tasks(v, params, model, q0, threads, tasks);
}

}  // namespace

std::vector<PairResult> align_batch(const seq::SequenceSet& queries, const seq::SequenceSet& targets,
                                    const Params& params, Method method, int threads) {
  BatchOptions o;
  o.method = method;
  o.threads = threads;
  return align_batch(queries, targets, params, o);
}

std::vector<PairResult> align_batch(const seq::SequenceSet& queries, const seq::SequenceSet& targets,
                                    const Params& params, const BatchOptions& options) {
  if (options.threads < 0) throw UsageError("threads must be >= 0 (0: all cores)");
  const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
  const std::size_t q1 = std::min(options.query_end, queries.size());
  const std::size_t q0 = std::min(options.query_begin, q1);
  if (q0 == q1 || targets.empty()) return {};
  Views v;
  for (std::size_t k = 0; k < queries.size(); ++k) v.queries.push_back(view_of(queries, k, options.query_letters));
  for (std::size_t k = 0; k < targets.size(); ++k) v.targets.push_back(view_of(targets, k, options.target_letters));
  for (const SeqView& t : v.targets) {
    if (t.length > static_cast<std::size_t>(1) << 30) throw InputError("miranda: a target is longer than 2^30 bases");
  }
  // The scan needs a bound on alignment spans (negative gap costs); without one, the reference.
  const bool bounded = max_positive_span(1, make_score_model(params)) >= 0;
  if (options.method == Method::reference || !bounded) return run_reference(v, params, q0, q1, threads, options);
  if (options.method == Method::gpu) return run_gpu(v, params, q0, q1, threads, options);
  return run_cpu(v, params, q0, q1, threads, options);
}

}  // namespace screen::miranda
