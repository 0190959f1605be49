#include "engine/device.hpp"

#include <omp.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"
#include "engine/batching.hpp"
#include "gpu/device_info.hpp"
#include "stages/bpmax/cuda.hpp"
#include "stages/bpmax/interact.hpp"
#include "stages/miranda/align_batch.hpp"
#include "stages/nussinov/cuda.hpp"
#include "stages/nussinov/fold.hpp"

namespace screen::engine {

namespace {

// A batch of the CPU pool (a GPU device's CPU threads included): at most this many units, about
// this many seconds of work per thread. A GPU batch: at most kGpuBatchUnits units (enough to fill
// the GPU with small problems), about kGpuBatchSeconds of GPU work, and the GPU's memory budget.
constexpr std::size_t kCpuBatchUnits = 4096;
constexpr double kCpuBatchSecondsPerThread = 8.0;
constexpr std::size_t kGpuBatchUnits = 65536;
constexpr double kGpuBatchSeconds = 8.0;

// The CPU pool (gpu < 0) or one GPU with a CPU pool beside it (see device.hpp).
class StageDevice final : public Device {
 public:
  StageDevice(int gpu, int threads, std::string name, std::uint64_t gpu_budget = 0)
      : gpu_(gpu), threads_(threads > 0 ? threads : omp_get_max_threads()), name_(std::move(name)),
        gpu_budget_(gpu_budget), bpmax_on_gpu_(gpu >= 0 && bpmax::gpu_available()) {
    if (name_.empty()) name_ = fmt::format("cpu ({} threads)", threads_);
  }
  std::string name() const override { return name_; }
  bool is_gpu() const override { return gpu_ >= 0; }
  int cpu_threads() const override { return threads_; }
  void set_memory_fraction(double f) { memory_fraction_ = f; }
  void set_failure_after(int batches) { fail_after_ = batches; }

  BatchLimits batch_limits(plan::StageKind stage) const override {
    BatchLimits l;
    if (gpu_ < 0 || (stage == plan::StageKind::bpmax && !bpmax_on_gpu_)) {
      l.kind = plan::DeviceKind::cpu_core;
      l.seconds = kCpuBatchSecondsPerThread * threads_;
      l.parallel = threads_;
      l.max_units = kCpuBatchUnits;
      return l;
    }
    l.kind = plan::DeviceKind::gpu;
    l.seconds = kGpuBatchSeconds;
    l.max_units = kGpuBatchUnits;
    l.memory_bytes = gpu_budget_;
    return l;
  }

  // BPMax on the GPU: the scores now, the host tracebacks as the task (on every core: the worker's
  // own threads drive the GPU's next batch meanwhile).
  HostTask start(const StageBatch& batch, const Inputs& in, const plan::StageParams& params,
                 store::StageRows& out) override {
    simulate_failure();
    if (batch.stage != plan::StageKind::bpmax || !bpmax_on_gpu_ || batch.count == 0) {
      run(batch, in, params, out);
      return nullptr;
    }
    auto pairs = std::make_shared<std::vector<bpmax::PairInput>>(bpmax_pairs(batch, in));
    auto scores = std::make_shared<bpmax::GpuScores>(
        bpmax::score_pairs_gpu(*pairs, params.bpmax, params.bpmax_traceback, gpu_options()));
    const bpmax::Params p = params.bpmax;
    const bool reverse = reverse_strand(batch);
    return [pairs, scores, p, reverse](store::StageRows& rows) {
      bpmax::trace_gpu_sites(*pairs, p, *scores, omp_get_num_procs());
      append_bpmax_rows(scores->results, *pairs, reverse, rows);
    };
  }

  void run(const StageBatch& batch, const Inputs& in, const plan::StageParams& params,
           store::StageRows& out) override {
    if (batch.count == 0) return;
    if (batch.stage == plan::StageKind::bpmax) {  // the GPU path routes by memory itself
      interact(batch, in, params, out);
      return;
    }
    bpmax_buffers_.release();  // the other stages' GPU paths plan with the GPU's free memory
    // On a GPU: the units over its memory budget go to the CPU threads, in runs, in unit order.
    const std::vector<BatchPart> parts =
        gpu_ < 0 ? std::vector<BatchPart>{{0, batch.count, false}} : split_by_gpu_memory(batch, gpu_budget_);
    for (const BatchPart& part : parts) {
      const StageBatch sub{batch.stage, batch.units + part.begin, part.end - part.begin};
      if (batch.stage == plan::StageKind::nussinov)
        fold(sub, in, params, part.on_gpu, out);
      else
        align(sub, in, params, part.on_gpu, out);
    }
  }

 private:
  void fold(const StageBatch& batch, const Inputs& in, const plan::StageParams& params, bool on_gpu,
            store::StageRows& out) {
    std::vector<const std::uint8_t*> seqs;
    std::vector<int> lengths;
    for (std::size_t k = 0; k < batch.count; ++k) {
      const plan::WorkUnit& u = batch.units[k];
      if (u.side != batch.units[0].side) throw Error(ExitCode::internal, "a Nussinov batch mixes sides");
      const seq::SequenceSet& set = u.side == 0 ? in.queries : in.targets;
      seqs.push_back(set.codes(u.a));
      lengths.push_back(static_cast<int>(set.length(u.a)));
    }
    std::vector<nussinov::FoldResult> results;
    if (!on_gpu) {
      results = nussinov::fold_batch(seqs, lengths, params.nussinov, params.nussinov_traceback,
                                     nussinov::Method::automatic, threads_);
    } else {
      // fold_batch(Method::gpu) on GPU gpu_ (it takes no device index).
      results = nussinov::fold_gpu_batch(seqs, lengths, params.nussinov, params.nussinov_traceback, gpu_);
      if (results.size() != seqs.size())
        throw Error(ExitCode::internal, "fold_gpu_batch returned a wrong number of results");
    }
    auto& rows = batch.units[0].side == 0 ? out.nussinov_queries : out.nussinov_targets;
    for (std::size_t k = 0; k < batch.count; ++k) rows.push_back(store::nussinov_row(batch.units[k].a, results[k]));
  }

  // A batch holds units of one strand (batching keeps sides apart): side 1 scans the targets'
  // reverse complements, and its rows are turned to forward-strand positions.
  static bool reverse_strand(const StageBatch& batch) { return batch.count > 0 && batch.units[0].side == 1; }

  void align(const StageBatch& batch, const Inputs& in, const plan::StageParams& params, bool on_gpu,
             store::StageRows& out) {
    const bool reverse = reverse_strand(batch);
    if (reverse && in.targets_rc.size() != in.targets.size())
      throw Error(ExitCode::internal, "a reverse-strand unit without the targets' reverse complements");
    const seq::SequenceSet& targets = reverse ? in.targets_rc : in.targets;
    const std::vector<std::string>& target_letters = reverse ? in.target_letters_rc : in.target_letters;
    const std::size_t hits_before = out.miranda_hits.size(), pairs_before = out.miranda_pairs.size();
    const std::size_t nt = targets.size();
    std::size_t k = 0;
    while (k < batch.count) {
      // The run of units of one query with consecutive targets [t0, t1).
      const std::uint64_t q = batch.units[k].a, t0 = batch.units[k].b;
      std::size_t e = k + 1;
      while (e < batch.count && batch.units[e].a == q && batch.units[e].b == t0 + (e - k)) ++e;
      const std::uint64_t t1 = t0 + (e - k);
      miranda::BatchOptions o;
      o.method = on_gpu ? miranda::Method::gpu : miranda::Method::cpu;
      o.gpu_device = on_gpu ? gpu_ : 0;
      o.threads = threads_;
      if (!in.query_letters.empty()) o.query_letters = &in.query_letters;
      if (t0 == 0 && t1 == nt) {
        // Whole rows: every following query whose row is complete too goes into the same call.
        std::uint64_t q1 = q + 1;
        while (e + nt <= batch.count && batch.units[e].a == q1 && batch.units[e].b == 0 &&
               batch.units[e + nt - 1].a == q1 && batch.units[e + nt - 1].b == nt - 1) {
          e += nt;
          ++q1;
        }
        o.query_begin = q;
        o.query_end = q1;
        if (!target_letters.empty()) o.target_letters = &target_letters;
        for (const auto& r : miranda::align_batch(in.queries, targets, params.miranda, o))
          store::append_miranda_rows(r.query_index, r.target_index, r, out.miranda_hits, out.miranda_pairs);
      } else {
        // Part of a row: the targets [t0, t1) as a set of their own.
        seq::SequenceSet sub;
        std::vector<std::string> letters;
        for (std::uint64_t t = t0; t < t1; ++t) {
          sub.add(targets.record(t), targets.codes(t), targets.length(t));
          if (!target_letters.empty()) letters.push_back(target_letters[t]);
        }
        if (!letters.empty()) o.target_letters = &letters;
        o.query_begin = q;
        o.query_end = q + 1;
        for (const auto& r : miranda::align_batch(in.queries, sub, params.miranda, o))
          store::append_miranda_rows(r.query_index, r.target_index + t0, r, out.miranda_hits, out.miranda_pairs);
      }
      k = e;
    }
    if (!reverse) return;
    for (std::size_t i = hits_before; i < out.miranda_hits.size(); ++i)
      store::to_forward_strand(out.miranda_hits[i], static_cast<std::int64_t>(targets.length(out.miranda_hits[i].target)));
    for (std::size_t i = pairs_before; i < out.miranda_pairs.size(); ++i) store::to_forward_strand(out.miranda_pairs[i]);
  }

  static std::vector<bpmax::PairInput> bpmax_pairs(const StageBatch& batch, const Inputs& in) {
    const bool reverse = reverse_strand(batch);
    if (reverse && in.targets_rc.size() != in.targets.size())
      throw Error(ExitCode::internal, "a reverse-strand unit without the targets' reverse complements");
    const seq::SequenceSet& targets = reverse ? in.targets_rc : in.targets;
    std::vector<bpmax::PairInput> pairs;
    for (std::size_t k = 0; k < batch.count; ++k) {
      const plan::WorkUnit& u = batch.units[k];
      bpmax::PairInput p;
      p.query = {in.queries.codes(u.a), static_cast<int>(in.queries.length(u.a))};
      p.target = {targets.codes(u.b), static_cast<int>(targets.length(u.b))};
      p.query_index = u.a;
      p.target_index = u.b;
      pairs.push_back(p);
    }
    return pairs;
  }

  // results[k] is of pairs[k]; reverse: the targets were reverse complements.
  static void append_bpmax_rows(const std::vector<bpmax::PairResult>& results,
                                const std::vector<bpmax::PairInput>& pairs, bool reverse, store::StageRows& out) {
    if (results.size() != pairs.size()) throw Error(ExitCode::internal, "BPMax returned a wrong number of results");
    for (std::size_t k = 0; k < results.size(); ++k) {
      const bpmax::PairResult& r = results[k];
      out.bpmax_scores.push_back(store::bpmax_score_row(r.query_index, r.target_index, r.site));
      const auto length = static_cast<std::int64_t>(pairs[k].target.length);
      if (reverse) store::to_forward_strand(out.bpmax_scores.back(), length);
      if (r.site.structure) {
        out.bpmax_structures.push_back(
            store::bpmax_structure_row(r.query_index, r.target_index, r.site.score, *r.site.structure));
        if (reverse) store::to_forward_strand(out.bpmax_structures.back(), length);
      }
    }
  }

  bpmax::GpuOptions gpu_options() {
    bpmax::GpuOptions o;
    o.device = gpu_;
    o.buffers = &bpmax_buffers_;
    o.memory_fraction = memory_fraction_;
    o.cpu_threads = threads_;
    return o;
  }

  void interact(const StageBatch& batch, const Inputs& in, const plan::StageParams& params, store::StageRows& out) {
    const std::vector<bpmax::PairInput> pairs = bpmax_pairs(batch, in);
    const std::vector<bpmax::PairResult> results =
        bpmax_on_gpu_ ? bpmax::interact_pairs_gpu(pairs, params.bpmax, params.bpmax_traceback, gpu_options())
                      : bpmax::interact_pairs(pairs, params.bpmax, params.bpmax_traceback, bpmax::Method::automatic,
                                              threads_);
    append_bpmax_rows(results, pairs, reverse_strand(batch), out);
  }

  int gpu_;  // -1: the CPU pool
  int threads_;
  std::string name_;
  std::uint64_t gpu_budget_;  // bytes of the GPU a batch may use
  bool bpmax_on_gpu_;         // the build has the GPU BPMax path and it is usable
  double memory_fraction_ = 0.9;
  bpmax::GpuBuffers bpmax_buffers_;  // the BPMax GPU path's buffers, kept between its batches
  int fail_after_ = -1;              // SCREEN_SIMULATE_GPU_FAILURE: fail at this batch (-1: never)
  int batches_started_ = 0;

  // A GPU that fails mid-run, for testing what the engine does then (make_gpu_device reads it).
  void simulate_failure() {
    if (fail_after_ >= 0 && batches_started_++ >= fail_after_)
      throw ResourceError(fmt::format("GPU {}: failed after {} batches (simulated: SCREEN_SIMULATE_GPU_FAILURE)",
                                      gpu_, fail_after_));
  }
};

// SCREEN_SIMULATE_GPU_FAILURE=G:N makes GPU G fail (a ResourceError) when it starts its batch N + 1;
// -1 when it names another GPU or is unset. A malformed value is an error, not ignored.
int simulated_failure_after(int gpu) {
  const char* v = std::getenv("SCREEN_SIMULATE_GPU_FAILURE");
  if (!v || !*v) return -1;
  int g = -1, n = -1;
  char tail = 0;
  if (std::sscanf(v, "%d:%d%c", &g, &n, &tail) != 2 || g < 0 || n < 0)
    throw UsageError(fmt::format("SCREEN_SIMULATE_GPU_FAILURE must be GPU:BATCHES (e.g. 1:3), not '{}'", v));
  return g == gpu ? n : -1;
}

}  // namespace

std::unique_ptr<Device> make_cpu_device(int threads) { return std::make_unique<StageDevice>(-1, threads, ""); }

std::unique_ptr<Device> make_gpu_device(int gpu_index, int cpu_threads, double memory_fraction) {
  if (!gpu::built_with_cuda()) throw ResourceError("a GPU device: this build has no CUDA");
  const int count = gpu::gpu_count();
  if (gpu_index < 0 || gpu_index >= count)
    throw ResourceError(count == 0 ? fmt::format("no GPU {}: {}", gpu_index, gpu::no_gpu_reason())
                                   : fmt::format("no GPU {} (this machine has {})", gpu_index, count));
  std::string gpu_name;
  std::size_t total_memory = 0;
  for (const auto& d : gpu::list_devices())
    if (d.index == gpu_index) {
      gpu_name = d.name;
      total_memory = d.total_memory;
    }
  const int threads = cpu_threads > 0 ? cpu_threads : omp_get_max_threads();
  const auto budget = static_cast<std::uint64_t>(static_cast<double>(total_memory) * memory_fraction);
  auto device = std::make_unique<StageDevice>(
      gpu_index, threads,
      fmt::format("gpu {} ({}) + cpu ({} threads){}", gpu_index, gpu_name, threads,
                  bpmax::gpu_available() ? "" : " for bpmax"),
      budget);
  device->set_memory_fraction(memory_fraction);
  device->set_failure_after(simulated_failure_after(gpu_index));
  return device;
}

}  // namespace screen::engine
