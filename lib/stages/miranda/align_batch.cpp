// align_batch: queries x targets on the CPU with OpenMP.
//
// Fast path: the targets form one stream of columns, cut into blocks (parts of long targets, or
// runs of short ones). Phase 1 scans every (query, block) unit with the SIMD scan (dynamic schedule)
// and keeps its candidate cells; phase 2 gathers each pair's candidates (a target cut across blocks
// collects them from several units) and runs finish_pair on the pairs that have any.
// Method::gpu (run_gpu): phase 1 on the GPU, target batch by target batch, phase 2 of each batch
// on the CPU while the GPU scans the next; with energies, each batch's duplexes are folded on the
// GPU while the CPU finishes the next batch.
#include "stages/miranda/align_batch.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>
#include <utility>

#include "common/error.hpp"
#include "common/work_profile.hpp"
#include "stages/energy/cuda.hpp"
#include "stages/energy/params.hpp"
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

Views make_views(const seq::SequenceSet& queries, const seq::SequenceSet& targets, const BatchOptions& o) {
  Views v;
  for (std::size_t k = 0; k < queries.size(); ++k) v.queries.push_back(view_of(queries, k, o.query_letters));
  for (std::size_t k = 0; k < targets.size(); ++k) v.targets.push_back(view_of(targets, k, o.target_letters));
  for (const SeqView& t : v.targets) {
    if (t.length > static_cast<std::size_t>(1) << 30) throw InputError("miranda: a target is longer than 2^30 bases");
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

// Phase 2: tracebacks and hits of n_tasks pairs, given in (query, target) order; task_of(k) gives
// pair k's Task (called once per k, from any thread). The pairs with hits, in the tasks' order.
template <class TaskOf>
std::vector<PairResult> finish_tasks(const Views& v, const Params& params, const ScoreModel& model, int threads,
                                     std::size_t n_tasks, const TaskOf& task_of, bool defer_energy = false) {
  FirstError error;
  std::vector<PairResult> results(n_tasks);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16)
  for (long long k = 0; k < static_cast<long long>(n_tasks); ++k) {
    if (error.failed()) continue;
    try {
      Task task = task_of(static_cast<std::size_t>(k));
      results[static_cast<std::size_t>(k)] = finish_pair(v.queries[task.q], v.targets[task.t], params, model,
                                                         std::move(task.candidates), task.q, task.t, defer_energy);
    } catch (...) {
      error.capture();
    }
  }
  error.rethrow();
  std::size_t kept = 0;
  for (std::size_t k = 0; k < n_tasks; ++k)
    if (keep(results[k])) {
      if (kept != k) results[kept] = std::move(results[k]);
      ++kept;
    }
  results.resize(kept);
  return results;
}

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
  return finish_tasks(v, params, model, threads, tasks.size(), [&tasks](std::size_t k) { return std::move(tasks[k]); });
}

// Candidates of one GPU batch grouped by pair: bucketed by query, each query's sorted by (target,
// i, j) (collect_candidates' order within a pair); tasks index runs of one target.
struct Grouped {
  std::vector<Candidate> cands;
  struct Run {
    std::size_t q = 0, t = 0, begin = 0, end = 0;
  };
  std::vector<Run> runs;
};

Grouped group_by_pair(const std::vector<FoundCandidate>& found, std::size_t nq, std::size_t q0, int threads) {
  // Counting sort by query on all threads: each thread counts its slice, then scatters it to the
  // places the counts give it (within a query, slices keep their order).
  const std::size_t n = found.size(), nth = static_cast<std::size_t>(threads);
  std::vector<std::size_t> count(nth * nq, 0), first(nq + 1, 0);
  std::vector<FoundCandidate> by_query(n);
  Grouped g;
  g.cands.resize(n);
  std::vector<std::size_t> n_runs(nq + 1, 0);
#pragma omp parallel num_threads(threads)
  {
    const std::size_t th = static_cast<std::size_t>(omp_get_thread_num());
    const std::size_t lo = n * th / nth, hi = n * (th + 1) / nth;
    std::size_t* mine = count.data() + th * nq;
    for (std::size_t k = lo; k < hi; ++k) ++mine[found[k].query];
#pragma omp barrier
#pragma omp single
    {
      std::size_t at = 0;
      for (std::size_t q = 0; q < nq; ++q) {
        first[q] = at;
        for (std::size_t t = 0; t < nth; ++t) {
          const std::size_t c = count[t * nq + q];
          count[t * nq + q] = at;
          at += c;
        }
      }
      first[nq] = at;
    }
    for (std::size_t k = lo; k < hi; ++k) by_query[mine[found[k].query]++] = found[k];
#pragma omp barrier
    // Each query's candidates by (target, i, j); its runs of one target counted.
#pragma omp for schedule(dynamic, 4)
    for (long long qq = 0; qq < static_cast<long long>(nq); ++qq) {
      const std::size_t q = static_cast<std::size_t>(qq);
      const auto b = by_query.begin() + static_cast<long>(first[q]), e = by_query.begin() + static_cast<long>(first[q + 1]);
      std::sort(b, e, [](const FoundCandidate& x, const FoundCandidate& y) {
        return std::tie(x.target, x.cand.i, x.cand.j) < std::tie(y.target, y.cand.i, y.cand.j);
      });
      std::size_t runs = 0;
      for (std::size_t k = first[q]; k < first[q + 1]; ++k) {
        runs += k == first[q] || by_query[k].target != by_query[k - 1].target;
        g.cands[k] = by_query[k].cand;
      }
      n_runs[q + 1] = runs;
    }
#pragma omp single
    {
      for (std::size_t q = 0; q < nq; ++q) n_runs[q + 1] += n_runs[q];
      g.runs.resize(n_runs[nq]);
    }
#pragma omp for schedule(dynamic, 4)
    for (long long qq = 0; qq < static_cast<long long>(nq); ++qq) {
      const std::size_t q = static_cast<std::size_t>(qq);
      std::size_t r = n_runs[q];
      for (std::size_t k = first[q]; k < first[q + 1];) {
        Grouped::Run run{q0 + q, by_query[k].target, k, k};
        while (k < first[q + 1] && by_query[k].target == run.t) ++k;
        run.end = k;
        g.runs[r++] = run;
      }
    }
  }
  return g;
}

// Frees parts on a thread of its own while the next batch is post-processed (millions of strings:
// freeing them on the pipeline's thread would take as long as a batch's scan); one part at a time.
class Reaper {
 public:
  Reaper() = default;
  ~Reaper() { wait(); }
  Reaper(const Reaper&) = delete;
  Reaper& operator=(const Reaper&) = delete;
  void give(std::vector<PairResult>&& part) {
    wait();
    thread_ = std::thread([p = std::move(part)]() mutable { std::vector<PairResult>().swap(p); });
  }
  void wait() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::thread thread_;
};

// Method::gpu with energies: a batch's pairs are finished with their energies deferred, the
// duplexes of all their hits folded on the GPU in one batch, then the energy filter and the cap
// applied (apply_energies). Two folders in turn, so that one part's energies run on the GPU while
// the CPU finishes the next part.
class GpuEnergies {
 public:
  GpuEnergies(int device, const Params& params, int threads)
      : params_(params), model_(energy::model_at(params.temperature)), threads_(threads) {
    for (auto& s : slots_) s.folder = std::make_unique<energy::GpuDuplexFolder>(device);
  }

  // Builds the part's duplex strings and starts their fold; the part waits in its slot.
  void submit(std::vector<PairResult>&& part) {
    Slot& s = slots_[next_];
    if (s.busy) throw Error(ExitCode::internal, "GpuEnergies: both slots busy");
    next_ ^= 1;
    s.part = std::move(part);
    const std::size_t n = s.part.size();
    s.first.assign(n + 1, 0);
    for (std::size_t p = 0; p < n; ++p) s.first[p + 1] = s.first[p] + s.part[p].hits.size();
    const std::size_t total = s.first[n];
    std::vector<std::string> dup(total);
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 64)
    for (long long p = 0; p < static_cast<long long>(n); ++p) {
      const PairResult& r = s.part[static_cast<std::size_t>(p)];
      for (std::size_t h = 0; h < r.hits.size(); ++h) dup[s.first[static_cast<std::size_t>(p)] + h] = duplex_string(r.hits[h]);
    }
    std::vector<std::uint64_t> offsets(total + 1, 0);
    for (std::size_t k = 0; k < total; ++k) offsets[k + 1] = offsets[k] + dup[k].size();
    std::string letters(offsets[total], '\0');
#pragma omp parallel for num_threads(threads_) schedule(static, 4096)
    for (long long k = 0; k < static_cast<long long>(total); ++k)
      dup[static_cast<std::size_t>(k)].copy(&letters[offsets[static_cast<std::size_t>(k)]], dup[static_cast<std::size_t>(k)].size());
    s.folder->submit(letters.data(), offsets.data(), total, model_);
    s.busy = true;
    order_.push_back(&s);
  }

  bool pending() const { return !order_.empty(); }

  // Waits for the oldest part's energies and returns the part finished (pairs left without hits removed).
  std::vector<PairResult> finish() {
    Slot& s = *order_.front();
    order_.erase(order_.begin());
    std::vector<int> energies(s.first.back());
    s.folder->collect(energies.data(), threads_);
    s.busy = false;
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 256)
    for (long long p = 0; p < static_cast<long long>(s.part.size()); ++p)
      apply_energies(s.part[static_cast<std::size_t>(p)], params_, energies.data() + s.first[static_cast<std::size_t>(p)]);
    std::vector<PairResult> out = std::move(s.part);
    out.erase(std::remove_if(out.begin(), out.end(), [](const PairResult& r) { return !keep(r); }), out.end());
    return out;
  }

  double kernel_seconds() const {
    double ms = 0;
    for (const auto& s : slots_) ms += s.folder->stats().kernel_ms;
    return ms / 1000.0;
  }

 private:
  struct Slot {
    std::unique_ptr<energy::GpuDuplexFolder> folder;
    std::vector<PairResult> part;
    std::vector<std::size_t> first;  // the part's hits: pair p's are first[p] .. first[p+1]-1
    bool busy = false;
  };
  Params params_;
  const energy::Model& model_;
  int threads_;
  Slot slots_[2];
  int next_ = 0;
  std::vector<Slot*> order_;  // submitted, oldest first
};

// Method::gpu: the targets stream through the GPU in batches; batch b's candidates are post-processed
// on the CPU (OpenMP) while the GPU scans batch b+1. A target's candidates wait (pending) until the
// batch holding its last position. Then the queries the GPU does not take, on the CPU.
void run_gpu(const Views& v, const Params& params, std::size_t q0, std::size_t q1, int threads,
             const BatchOptions& o, const PairSink& sink) {
  GpuPipelineTimes times;
  auto clock = std::chrono::steady_clock::now();
  const auto lap = [&clock](double& into) {
    const auto now = std::chrono::steady_clock::now();
    into += std::chrono::duration<double>(now - clock).count();
    clock = now;
  };
  const ScoreModel model = make_score_model(params);
  GpuScanOptions go;
  go.device = o.gpu_device;
  go.chunk_columns = o.gpu_chunk_columns;
  go.batch_columns = o.gpu_batch_columns;
  go.memory_fraction = o.gpu_memory_fraction;
  const std::size_t nq = q1 - q0, nt = v.targets.size();
  GpuScanner scanner(v.queries.data() + q0, nq, v.targets.data(), nt, model, go);
  const std::size_t nb = scanner.batches(), gpu_side = nq - scanner.cpu_queries().size();
  std::vector<FoundCandidate> found, pending;
  Reaper reaper;
  // Energies on the GPU (params.energy): each batch's duplexes folded there, one batch behind.
  std::optional<GpuEnergies> energies;
  if (params.energy) energies.emplace(o.gpu_device, params, threads);
  std::size_t progress_ready = 0;
  // The oldest part whose energies are on the GPU: collected, finished and handed to the sink.
  const auto send_previous = [&] {
    std::vector<PairResult> ready = energies->finish();
    lap(times.energy);
    if (o.progress) o.progress(progress_ready);
    sink(ready);
    reaper.give(std::move(ready));
    lap(times.sink);
  };
  if (nb > 0) scanner.submit(0);
  lap(times.setup);
  for (std::size_t b = 0; b < nb; ++b) {
    found.swap(pending);
    pending.clear();
    scanner.collect(b, found);
    lap(times.scan_wait);
    if (b + 1 < nb) scanner.submit(b + 1);  // the GPU works on b+1 while the CPU finishes b
    lap(times.submit);
    const std::size_t done = scanner.targets_done(b);
    if (done < nt) {
      const auto cut = std::partition(found.begin(), found.end(), [done](const FoundCandidate& f) { return f.target < done; });
      pending.assign(cut, found.end());
      found.erase(cut, found.end());
    }
    const Grouped g = group_by_pair(found, nq, q0, threads);
    lap(times.group);
    std::vector<PairResult> part = finish_tasks(
        v, params, model, threads, g.runs.size(),
        [&g](std::size_t k) {
          const Grouped::Run& r = g.runs[k];
          return Task{r.q, r.t,
                      std::vector<Candidate>(g.cands.begin() + static_cast<long>(r.begin),
                                             g.cands.begin() + static_cast<long>(r.end))};
        },
        energies.has_value());
    lap(times.finish);
    if (energies) {
      // This batch's energies start on the GPU; the previous batch's are collected and it goes out.
      energies->submit(std::move(part));
      lap(times.energy);
      if (energies->pending() && b > 0) send_previous();
      progress_ready = gpu_side * done;
      continue;
    }
    if (o.progress) o.progress(gpu_side * done);
    sink(part);
    reaper.give(std::move(part));
    lap(times.sink);
  }
  if (energies && energies->pending()) send_previous();
  reaper.wait();
  lap(times.sink);
  BatchOptions cpu_options = o;
  cpu_options.progress = nullptr;
  for (const std::size_t cq : scanner.cpu_queries()) {
    std::vector<PairResult> part = run_cpu(v, params, q0 + cq, q0 + cq + 1, threads, cpu_options);
    sink(part);
  }
  lap(times.cpu_queries);
  work_profile::add_gpu(scanner.stats().kernel_ms / 1000.0 + (energies ? energies->kernel_seconds() : 0.0));  // the scan's kernels (events), for the run profile
  if (o.progress) o.progress(nq * nt);
  if (o.gpu_times != nullptr) *o.gpu_times = times;
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
  const Views v = make_views(queries, targets, options);
  // The scan needs a bound on alignment spans (negative gap costs); without one, the reference.
  const bool bounded = max_positive_span(1, make_score_model(params)) >= 0;
  if (options.method == Method::reference || !bounded) return run_reference(v, params, q0, q1, threads, options);
  if (options.method == Method::gpu) {
    std::vector<PairResult> all;
    run_gpu(v, params, q0, q1, threads, options, [&all](std::vector<PairResult>& part) {
      all.insert(all.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
    });
    std::sort(all.begin(), all.end(), [](const PairResult& a, const PairResult& b) {
      return a.query_index != b.query_index ? a.query_index < b.query_index : a.target_index < b.target_index;
    });
    return all;
  }
  return run_cpu(v, params, q0, q1, threads, options);
}

void align_batch_streamed(const seq::SequenceSet& queries, const seq::SequenceSet& targets, const Params& params,
                          const BatchOptions& options, const PairSink& sink) {
  BatchOptions o = options;
  if (o.method == Method::gpu && max_positive_span(1, make_score_model(params)) >= 0 && !targets.empty()) {
    if (o.threads < 0) throw UsageError("threads must be >= 0 (0: all cores)");
    const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
    const std::size_t q1 = std::min(o.query_end, queries.size());
    const std::size_t q0 = std::min(o.query_begin, q1);
    if (q0 == q1) return;
    const Views v = make_views(queries, targets, o);
    run_gpu(v, params, q0, q1, threads, o, sink);
    return;
  }
  std::vector<PairResult> all = align_batch(queries, targets, params, o);
  sink(all);
}

}  // namespace screen::miranda
