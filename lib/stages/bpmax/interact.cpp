#include "stages/bpmax/interact.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>

#include "common/error.hpp"
#include "seq/sequence_set.hpp"
#include "stages/bpmax/cpu.hpp"
#include "stages/bpmax/site_traceback.hpp"
#include "stages/bpmax/window_pruning.hpp"

namespace screen::bpmax {

Method parse_method(const std::string& text) {
  if (text == "auto") return Method::automatic;
  if (text == "reference") return Method::reference;
  if (text == "cpu") return Method::cpu;
  throw UsageError(fmt::format("BPMax method must be auto, reference or cpu, not '{}'", text));
}

const char* method_name(Method m) {
  switch (m) {
    case Method::automatic: return "auto";
    case Method::reference: return "reference";
    case Method::cpu: return "cpu";
  }
  return "?";
}

SiteResult interact_one(Strand query, Strand target, const Params& p, bool with_traceback, Method method, int threads) {
  if (method == Method::reference)
    return interact_reference(query.codes, query.length, target.codes, target.length, p, with_traceback);
  return interact_cpu(query.codes, query.length, target.codes, target.length, p, with_traceback, threads);
}

namespace {

// Scores the pair, then traces it when the mode asks for its score (the tables of the scoring run
// are reused: a traced pair is scored with the traceback in the same call when the mode is all).
PairResult run_pair(const PairInput& in, const Params& p, TracebackMode tb, Method method, int threads) {
  PairResult r;
  r.query_index = in.query_index;
  r.target_index = in.target_index;
  if (tb.kind == TracebackMode::Kind::all) {
    r.site = interact_one(in.query, in.target, p, true, method, threads);
    return r;
  }
  if (tb.kind == TracebackMode::Kind::none || method == Method::reference) {
    r.site = interact_one(in.query, in.target, p, false, method, threads);
    if (tb.wants(r.site.score)) r.site = interact_one(in.query, in.target, p, true, method, threads);
    return r;
  }
  const CpuTables t(in.query.codes, in.query.length, in.target.codes, in.target.length, p, threads);
  r.site = find_site(static_cast<const TableView&>(t), false);
  if (tb.wants(r.site.score)) r.site = find_site(static_cast<const TableView&>(t), true);
  return r;
}

// Every pair with every window computed.
std::vector<PairResult> score_every_window(const std::vector<PairInput>& pairs, const Params& p, TracebackMode traceback,
                                           Method method, int threads) {
  std::vector<PairResult> out(pairs.size());
  std::vector<std::size_t> small, large;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const double work = term1_updates(pairs[k].query.length, pairs[k].target.length, p);
    const std::size_t bytes = cpu_table_bytes(pairs[k].query.length, pairs[k].target.length, p);
    (work < kSmallPairUpdates && bytes < kSmallPairBytes && pairs.size() > 1 ? small : large).push_back(k);
  }
  // Small pairs: one thread each. Exceptions are carried out of the parallel loop.
  std::string error;
  ExitCode code = ExitCode::ok;
  const long long nsmall = static_cast<long long>(small.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1 && nsmall > 1)
  for (long long s = 0; s < nsmall; ++s) {
    const std::size_t k = small[static_cast<std::size_t>(s)];
    try {
      out[k] = run_pair(pairs[k], p, traceback, method, 1);
    } catch (const Error& e) {
#pragma omp critical(bpmax_batch_error)
      if (code == ExitCode::ok) {
        code = e.code();
        error = e.what();
      }
    } catch (const std::exception& e) {
#pragma omp critical(bpmax_batch_error)
      if (code == ExitCode::ok) {
        code = ExitCode::resource;
        error = e.what();
      }
    }
  }
  if (code != ExitCode::ok) throw Error(code, error);
  // Large pairs: one at a time, all threads inside.
  for (std::size_t k : large) out[k] = run_pair(pairs[k], p, traceback, method, threads);
  return out;
}

// The prunable pairs (window_pruning.hpp) on the CPU: bounds, seeds and pieces, then the tracebacks the mode
// asks for from each site's window (site_traceback.hpp).
std::vector<PairResult> score_pruned_cpu(const std::vector<PairInput>& pairs, const Params& p, TracebackMode traceback,
                                         int threads) {
  const WindowBoundsFn bounds = [&](const std::vector<PairInput>& ps) {
    std::vector<std::vector<std::int32_t>> ub(ps.size());
    const long long n = static_cast<long long>(ps.size());
    std::string error;  // carried out of the parallel loop (out of memory)
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1 && n > 1)
    for (long long k = 0; k < n; ++k) {
      const PairInput& in = ps[static_cast<std::size_t>(k)];
      try {
        ub[static_cast<std::size_t>(k)] = window_upper_bounds(in.query.codes, in.query.length, in.target.codes, in.target.length, p);
      } catch (const std::exception& e) {
#pragma omp critical(bpmax_bounds_error)
        if (error.empty()) error = e.what();
      }
    }
    if (!error.empty()) throw ResourceError("BPMax window bounds: " + error);
    return ub;
  };
  const SitesFn sites = [&](const std::vector<PairInput>& ps) {
    std::vector<PairResult> r = score_every_window(ps, p, TracebackMode::none(), Method::cpu, threads);
    std::vector<SiteResult> s(r.size());
    for (std::size_t k = 0; k < r.size(); ++k) s[k] = std::move(r[k].site);
    return s;
  };
  std::vector<SiteResult> got = score_pruned(pairs, p, bounds, sites);
  std::vector<PairResult> out(pairs.size());
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    out[k].query_index = pairs[k].query_index;
    out[k].target_index = pairs[k].target_index;
    out[k].site = std::move(got[k]);
  }
  const long long n = static_cast<long long>(pairs.size());
  std::string error;
  ExitCode code = ExitCode::ok;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1 && n > 1)
  for (long long k = 0; k < n; ++k) {
    PairResult& r = out[static_cast<std::size_t>(k)];
    try {
      if (traceback.wants(r.site.score)) r.site.structure = trace_site_window(pairs[static_cast<std::size_t>(k)], p, r.site);
    } catch (const Error& e) {
#pragma omp critical(bpmax_trace_error)
      if (code == ExitCode::ok) code = e.code(), error = e.what();
    } catch (const std::exception& e) {
#pragma omp critical(bpmax_trace_error)
      if (code == ExitCode::ok) code = ExitCode::resource, error = e.what();
    }
  }
  if (code != ExitCode::ok) throw Error(code, error);
  return out;
}

}  // namespace

std::vector<PairResult> interact_pairs(const std::vector<PairInput>& pairs, const Params& p, TracebackMode traceback,
                                       Method method, int threads) {
  if (threads <= 0) threads = omp_get_max_threads();
  if (method != Method::automatic) return score_every_window(pairs, p, traceback, method, threads);
  const PairTable table = make_pair_table(p.weights);
  std::vector<std::size_t> pruned, every;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const Band b = make_band(std::max(pairs[k].query.length, 0), std::max(pairs[k].target.length, 0), p);
    (prunable(b, table) ? pruned : every).push_back(k);
  }
  if (pruned.empty()) return score_every_window(pairs, p, traceback, method, threads);
  auto subset = [&](const std::vector<std::size_t>& which) {
    std::vector<PairInput> v;
    for (const std::size_t k : which) v.push_back(pairs[k]);
    return v;
  };
  std::vector<PairResult> out(pairs.size());
  std::vector<PairResult> a = score_every_window(subset(every), p, traceback, method, threads);
  for (std::size_t k = 0; k < every.size(); ++k) out[every[k]] = std::move(a[k]);
  std::vector<PairResult> b = score_pruned_cpu(subset(pruned), p, traceback, threads);
  for (std::size_t k = 0; k < pruned.size(); ++k) out[pruned[k]] = std::move(b[k]);
  return out;
}

std::vector<PairResult> interact_batch(const std::vector<Strand>& queries, const std::vector<Strand>& targets,
                                       const Params& p, TracebackMode traceback, Method method, int threads) {
  std::vector<PairInput> pairs;
  pairs.reserve(queries.size() * targets.size());
  for (std::size_t q = 0; q < queries.size(); ++q)
    for (std::size_t t = 0; t < targets.size(); ++t) pairs.push_back({queries[q], targets[t], q, t});
  return interact_pairs(pairs, p, traceback, method, threads);
}

std::vector<PairResult> interact_batch(const seq::SequenceSet& queries, const seq::SequenceSet& targets,
                                       const Params& p, TracebackMode traceback, Method method, int threads) {
  auto strands = [](const seq::SequenceSet& set) {
    std::vector<Strand> v;
    for (std::size_t k = 0; k < set.size(); ++k) v.push_back({set.codes(k), static_cast<int>(set.length(k))});
    return v;
  };
  return interact_batch(strands(queries), strands(targets), p, traceback, method, threads);
}

}  // namespace screen::bpmax
