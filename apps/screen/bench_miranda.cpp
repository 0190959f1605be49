// `screen bench miranda`: timings of the miRanda-style alignment paths on human microRNAs against the
// SARS-CoV-2 genome, with miRanda 3.3a's own figure for comparison. Cells = sum over pairs of
// Lq x Lr; GCUPS = cells / seconds / 1e9. The reference runs on a subset only (it is slow); every
// row prints the cells it measured, nothing is extrapolated.
#include <fmt/format.h>
#include <omp.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "apps/screen/cli.hpp"
#include "common/error.hpp"
#include "seq/sequence_set.hpp"
#include "stages/miranda/align_batch.hpp"
#include "stages/miranda/cpu_scan.hpp"

namespace screen::cli {

namespace {

struct BenchOptions {
  std::string queries = "data/hsa_mature_mirbase.fa";
  std::string targets = "data/sarscov2_NC_045512.2.fa";
  int limit_queries = 0;
  int reference_queries = 20;
  int threads = 0;
};

seq::SequenceSet first_records(const seq::SequenceSet& set, std::size_t n) {
  seq::SequenceSet out;
  for (std::size_t k = 0; k < n && k < set.size(); ++k) out.add(set.record(k), set.codes(k), set.length(k));
  return out;
}

double cells_of(const seq::SequenceSet& q, const seq::SequenceSet& t) {
  return static_cast<double>(q.total_length()) * static_cast<double>(t.total_length());
}

std::size_t hit_count(const std::vector<miranda::PairResult>& r) {
  std::size_t n = 0;
  for (const auto& p : r) n += p.hits.size();
  return n;
}

bool same_hits(const std::vector<miranda::PairResult>& a, const std::vector<miranda::PairResult>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (a[k].query_index != b[k].query_index || a[k].target_index != b[k].target_index) return false;
    if (a[k].hits.size() != b[k].hits.size()) return false;
    for (std::size_t h = 0; h < a[k].hits.size(); ++h) {
      const miranda::Hit &x = a[k].hits[h], &y = b[k].hits[h];
      if (x.score != y.score || x.rstart != y.rstart || x.rend != y.rend || x.qstart != y.qstart ||
          x.qend != y.qend || x.query_line != y.query_line || x.match_line != y.match_line ||
          x.target_line != y.target_line)
        return false;
    }
  }
  return true;
}

struct Row {
  std::vector<miranda::PairResult> results;
  double seconds = 0;
};

Row run_row(const std::string& what, const seq::SequenceSet& q, const seq::SequenceSet& t, miranda::Method method,
            miranda::ScanIsa isa, int threads) {
  miranda::BatchOptions o;
  o.method = method;
  o.isa = isa;
  o.threads = threads;
  Row row;
  const auto t0 = std::chrono::steady_clock::now();
  row.results = miranda::align_batch(q, t, miranda::Params{}, o);
  row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cells = cells_of(q, t);
  const std::string path =
      method == miranda::Method::reference ? std::string("reference")
                                           : std::string("cpu-scan/") + miranda::scan_isa_name(miranda::resolve_scan_isa(isa));
  std::printf("%-22s %-16s %7d %8zu %11.3e %9.3f %8.3f %7zu\n", what.c_str(), path.c_str(), threads, q.size(), cells,
              row.seconds, cells / row.seconds / 1e9, hit_count(row.results));
  std::fflush(stdout);
  return row;
}

int run_bench(const BenchOptions& o) {
  if (o.threads < 0) throw UsageError("--threads must be >= 0 (0: all cores)");
  if (o.limit_queries < 0) throw UsageError("--limit-queries must be >= 0 (0: all)");
  if (o.reference_queries < 0) throw UsageError("--reference-queries must be >= 0");
  seq::FastaOptions fo;
  fo.mask_x = true;
  const seq::SequenceSet all = seq::read_fasta(o.queries, fo);
  const seq::SequenceSet targets = seq::read_fasta(o.targets, fo);
  const seq::SequenceSet queries =
      o.limit_queries > 0 ? first_records(all, static_cast<std::size_t>(o.limit_queries)) : first_records(all, all.size());
  const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
  std::vector<int> thread_counts{1};
  if (threads > 1) thread_counts.push_back(threads);
  const miranda::ScanIsa best = miranda::best_scan_isa();
  spdlog::info("bench miranda: {} queries ({} nt) x {} targets ({} nt), default parameters; scan ISA {}",
               queries.size(), queries.total_length(), targets.size(), targets.total_length(),
               miranda::scan_isa_name(best));

  std::printf("%-22s %-16s %7s %8s %11s %9s %8s %7s\n", "case", "path", "threads", "queries", "cells", "seconds",
              "GCUPS", "hits");
  // The reference and the fast path on the same subset, and whether they agree.
  const seq::SequenceSet subset = first_records(queries, static_cast<std::size_t>(o.reference_queries));
  if (!subset.empty()) {
    const std::string what = fmt::format("first {} x genome", subset.size());
    std::vector<miranda::PairResult> ref;
    for (int t : thread_counts) ref = run_row(what, subset, targets, miranda::Method::reference, best, t).results;
    bool agree = true;
    for (int t : thread_counts) agree = same_hits(ref, run_row(what, subset, targets, miranda::Method::cpu, best, t).results) && agree;
    std::printf("  (cpu-scan hits %s the reference's on this subset)\n", agree ? "equal" : "DIFFER FROM");
  }
  // miRanda's published case: 200 microRNAs x the genome, one core.
  if (queries.size() >= 200) {
    const seq::SequenceSet first200 = first_records(queries, 200);
    run_row("first 200 x genome", first200, targets, miranda::Method::cpu, best, 1);
  }
  // Every query.
  const std::string what = fmt::format("{} x genome", queries.size());
  std::vector<miranda::ScanIsa> isas;
  for (miranda::ScanIsa isa : {miranda::ScanIsa::sse2, miranda::ScanIsa::avx2})
    if (miranda::scan_isa_available(isa)) isas.push_back(isa);
  if (isas.empty()) isas.push_back(miranda::ScanIsa::scalar);
  for (miranda::ScanIsa isa : isas) run_row(what, queries, targets, miranda::Method::cpu, isa, 1);
  if (threads > 1) run_row(what, queries, targets, miranda::Method::cpu, best, threads);
  std::printf(
      "miRanda 3.3a (-noenergy), for comparison: 200 microRNAs x the genome, 1.28e8 cells in about 3-4.5 s on one "
      "core = 0.03-0.04 GCUPS\n");
  return 0;
}

}  // namespace

void add_bench_miranda(CLI::App& bench, Action& action) {
  auto* cmd = bench.add_subcommand("miranda", "Benchmark: miRanda-style alignment (reference and SIMD scan)");
  auto o = std::make_shared<BenchOptions>();
  cmd->add_option("--queries", o->queries, "Query FASTA (microRNAs)")->capture_default_str();
  cmd->add_option("--targets", o->targets, "Target FASTA")->capture_default_str();
  cmd->add_option("--limit-queries", o->limit_queries, "Use the first N queries (0: all)")->capture_default_str();
  cmd->add_option("--reference-queries", o->reference_queries,
                  "Queries the (slow) reference runs on, and the fast path beside it")
      ->capture_default_str();
  cmd->add_option("--threads", o->threads, "Threads of the multi-threaded rows (0: all cores)")->capture_default_str();
  cmd->callback([&action, o] { action = [o]() -> int { return run_bench(*o); }; });
}

}  // namespace screen::cli
