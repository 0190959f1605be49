#include "engine/device.hpp"

#include <omp.h>

#include <fmt/format.h>

#include "common/error.hpp"
#include "stages/bpmax/interact.hpp"
#include "stages/miranda/align_batch.hpp"
#include "stages/nussinov/fold.hpp"

namespace screen::engine {

namespace {

class CpuDevice final : public Device {
 public:
  explicit CpuDevice(int threads) : threads_(threads > 0 ? threads : omp_get_max_threads()) {}
  std::string name() const override { return fmt::format("cpu ({} threads)", threads_); }
  int parallelism() const override { return threads_; }

  void run(const StageBatch& batch, const Inputs& in, const plan::StageParams& params,
           store::StageRows& out) override {
    if (batch.count == 0) return;
    switch (batch.stage) {
      case plan::StageKind::nussinov: fold(batch, in, params, out); break;
      case plan::StageKind::miranda: align(batch, in, params, out); break;
      case plan::StageKind::bpmax: interact(batch, in, params, out); break;
    }
  }

 private:
  void fold(const StageBatch& batch, const Inputs& in, const plan::StageParams& params, store::StageRows& out) {
    std::vector<const std::uint8_t*> seqs;
    std::vector<int> lengths;
    for (std::size_t k = 0; k < batch.count; ++k) {
      const plan::WorkUnit& u = batch.units[k];
      if (u.side != batch.units[0].side) throw Error(ExitCode::internal, "a Nussinov batch mixes sides");
      const seq::SequenceSet& set = u.side == 0 ? in.queries : in.targets;
      seqs.push_back(set.codes(u.a));
      lengths.push_back(static_cast<int>(set.length(u.a)));
    }
    const auto results = nussinov::fold_batch(seqs, lengths, params.nussinov, params.nussinov_traceback,
                                              nussinov::Method::automatic, threads_);
    auto& rows = batch.units[0].side == 0 ? out.nussinov_queries : out.nussinov_targets;
    for (std::size_t k = 0; k < batch.count; ++k) rows.push_back(store::nussinov_row(batch.units[k].a, results[k]));
  }

  void align(const StageBatch& batch, const Inputs& in, const plan::StageParams& params, store::StageRows& out) {
    const std::size_t nt = in.targets.size();
    std::size_t k = 0;
    while (k < batch.count) {
      // The run of units of one query with consecutive targets [t0, t1).
      const std::uint64_t q = batch.units[k].a, t0 = batch.units[k].b;
      std::size_t e = k + 1;
      while (e < batch.count && batch.units[e].a == q && batch.units[e].b == t0 + (e - k)) ++e;
      const std::uint64_t t1 = t0 + (e - k);
      miranda::BatchOptions o;
      o.method = miranda::Method::cpu;
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
        if (!in.target_letters.empty()) o.target_letters = &in.target_letters;
        for (const auto& r : miranda::align_batch(in.queries, in.targets, params.miranda, o))
          store::append_miranda_rows(r.query_index, r.target_index, r, out.miranda_hits, out.miranda_pairs);
      } else {
        // Part of a row: the targets [t0, t1) as a set of their own.
        seq::SequenceSet sub;
        std::vector<std::string> letters;
        for (std::uint64_t t = t0; t < t1; ++t) {
          sub.add(in.targets.record(t), in.targets.codes(t), in.targets.length(t));
          if (!in.target_letters.empty()) letters.push_back(in.target_letters[t]);
        }
        if (!letters.empty()) o.target_letters = &letters;
        o.query_begin = q;
        o.query_end = q + 1;
        for (const auto& r : miranda::align_batch(in.queries, sub, params.miranda, o))
          store::append_miranda_rows(r.query_index, r.target_index + t0, r, out.miranda_hits, out.miranda_pairs);
      }
      k = e;
    }
  }

  void interact(const StageBatch& batch, const Inputs& in, const plan::StageParams& params, store::StageRows& out) {
    std::vector<bpmax::PairInput> pairs;
    for (std::size_t k = 0; k < batch.count; ++k) {
      const plan::WorkUnit& u = batch.units[k];
      bpmax::PairInput p;
      p.query = {in.queries.codes(u.a), static_cast<int>(in.queries.length(u.a))};
      p.target = {in.targets.codes(u.b), static_cast<int>(in.targets.length(u.b))};
      p.query_index = u.a;
      p.target_index = u.b;
      pairs.push_back(p);
    }
    for (const auto& r : bpmax::interact_pairs(pairs, params.bpmax, params.bpmax_traceback,
                                               bpmax::Method::automatic, threads_)) {
      out.bpmax_scores.push_back(store::bpmax_score_row(r.query_index, r.target_index, r.site));
      if (r.site.structure)
        out.bpmax_structures.push_back(
            store::bpmax_structure_row(r.query_index, r.target_index, r.site.score, *r.site.structure));
    }
  }

  int threads_;
};

}  // namespace

std::unique_ptr<Device> make_cpu_device(int threads) { return std::make_unique<CpuDevice>(threads); }

}  // namespace screen::engine
