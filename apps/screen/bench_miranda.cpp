// `screen bench miranda`: timings of the miRanda-style alignment paths on human microRNAs against the
// SARS-CoV-2 genome, with miRanda 3.3a's own figure for comparison. Cells = sum over pairs of
// Lq x Lr; GCUPS = cells / seconds / 1e9. The reference runs on a subset only (it is slow); every
// row prints the cells it measured, nothing is extrapolated.
#include <fmt/format.h>
#include <omp.h>
#include <spdlog/spdlog.h>

#include <algorithm>
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
#include "stages/miranda/cuda.hpp"

namespace screen::cli {

namespace {

struct BenchOptions {
  std::string queries = "data/hsa_mature_mirbase.fa";
  std::string targets = "data/sarscov2_NC_045512.2.fa";
  int limit_queries = 0;
  int reference_queries = 20;
  int threads = 0;
  std::string device = "cpu";
  int repeats = 3;
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

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The GPU rows: the scan alone (wall and kernel time, median of `repeats` after one warm-up run) and
// end to end through align_batch (Method::gpu), checked against the CPU fast path's hits.
void run_gpu_rows(const seq::SequenceSet& q, const seq::SequenceSet& t, int threads, int repeats,
                  const std::vector<miranda::PairResult>* cpu_results) {
  if (!miranda::gpu_available()) {
    std::printf("(no GPU rows: no usable GPU)\n");
    return;
  }
  std::vector<miranda::SeqView> qv, tv;
  for (std::size_t k = 0; k < q.size(); ++k) qv.push_back(miranda::SeqView{q.codes(k), q.length(k), nullptr});
  for (std::size_t k = 0; k < t.size(); ++k) tv.push_back(miranda::SeqView{t.codes(k), t.length(k), nullptr});
  const miranda::ScoreModel model = miranda::make_score_model(miranda::Params{});
  const double cells = cells_of(q, t);
  const std::string what = fmt::format("{} x genome", q.size());
  miranda::GpuScanStats st;
  std::size_t candidates = 0;
  std::vector<double> wall, kernel;
  for (int r = 0; r <= repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto found = miranda::scan_candidates_gpu(qv.data(), qv.size(), tv.data(), tv.size(), model, {}, &st);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    candidates = 0;
    for (const auto& p : found) candidates += p.candidates.size();
    if (r == 0) continue;  // warm-up (context, module load)
    wall.push_back(s);
    kernel.push_back(st.kernel_ms / 1e3);
  }
  const double w = median(wall), k = median(kernel);
  std::printf("%-22s %-16s %7s %8zu %11.3e %9.4f %8.1f %7s  (%zu candidate cells, chunk %d columns)\n", what.c_str(),
              "gpu-scan/wall", "-", q.size(), cells, w, cells / w / 1e9, "-", candidates, st.chunk_columns);
  std::printf("%-22s %-16s %7s %8zu %11.3e %9.4f %8.1f %7s\n", what.c_str(), "gpu-scan/kernel", "-", q.size(), cells,
              k, cells / k / 1e9, "-");
  std::vector<double> e2e;
  std::vector<miranda::PairResult> results;
  for (int r = 0; r <= repeats; ++r) {
    miranda::BatchOptions o;
    o.method = miranda::Method::gpu;
    o.threads = threads;
    const auto t0 = std::chrono::steady_clock::now();
    results = miranda::align_batch(q, t, miranda::Params{}, o);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) e2e.push_back(s);
  }
  const double e = median(e2e);
  std::printf("%-22s %-16s %7d %8zu %11.3e %9.4f %8.1f %7zu\n", what.c_str(), "gpu end-to-end", threads, q.size(),
              cells, e, cells / e / 1e9, hit_count(results));
  if (cpu_results != nullptr)
    std::printf("  (gpu hits %s the cpu-scan's on all %zu queries)\n",
                same_hits(*cpu_results, results) ? "equal" : "DIFFER FROM", q.size());
  std::printf("  (GPU times: median of %d runs after a warm-up run)\n", repeats);
}

int run_bench(const BenchOptions& o) {
  if (o.device != "cpu" && o.device != "gpu" && o.device != "all")
    throw UsageError(fmt::format("--device must be cpu, gpu or all, not '{}'", o.device));
  if (o.repeats < 1) throw UsageError("--repeats must be >= 1");
  const bool cpu_rows = o.device != "gpu", gpu_rows = o.device != "cpu";
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
  if (cpu_rows && !subset.empty()) {
    const std::string what = fmt::format("first {} x genome", subset.size());
    std::vector<miranda::PairResult> ref;
    for (int t : thread_counts) ref = run_row(what, subset, targets, miranda::Method::reference, best, t).results;
    bool agree = true;
    for (int t : thread_counts) agree = same_hits(ref, run_row(what, subset, targets, miranda::Method::cpu, best, t).results) && agree;
    std::printf("  (cpu-scan hits %s the reference's on this subset)\n", agree ? "equal" : "DIFFER FROM");
  }
  // miRanda's published case: 200 microRNAs x the genome, one core.
  if (cpu_rows && queries.size() >= 200) {
    const seq::SequenceSet first200 = first_records(queries, 200);
    run_row("first 200 x genome", first200, targets, miranda::Method::cpu, best, 1);
  }
  // Every query.
  const std::string what = fmt::format("{} x genome", queries.size());
  std::vector<miranda::ScanIsa> isas;
  for (miranda::ScanIsa isa : {miranda::ScanIsa::sse2, miranda::ScanIsa::avx2})
    if (miranda::scan_isa_available(isa)) isas.push_back(isa);
  if (isas.empty()) isas.push_back(miranda::ScanIsa::scalar);
  if (cpu_rows)
    for (miranda::ScanIsa isa : isas) run_row(what, queries, targets, miranda::Method::cpu, isa, 1);
  std::vector<miranda::PairResult> cpu_all;
  if (threads > 1 || gpu_rows) cpu_all = run_row(what, queries, targets, miranda::Method::cpu, best, threads).results;
  if (gpu_rows) run_gpu_rows(queries, targets, threads, o.repeats, &cpu_all);
  std::printf(
      "miRanda 3.3a (-noenergy), for comparison: 200 microRNAs x the genome, 1.28e8 cells in about 3-4.5 s on one "
      "core = 0.03-0.04 GCUPS\n");
  if (gpu_rows)
    std::printf("CUDA-miRanda (Wang et al. 2014), for comparison: 1.8 GCUPS per Tesla M2090\n");
  return 0;
}

}  // namespace

void add_bench_miranda(CLI::App& bench, Action& action) {
  auto* cmd = bench.add_subcommand("miranda", "Benchmark: miRanda-style alignment (reference, SIMD scan, GPU scan)");
  auto o = std::make_shared<BenchOptions>();
  cmd->add_option("--queries", o->queries, "Query FASTA (microRNAs)")->capture_default_str();
  cmd->add_option("--targets", o->targets, "Target FASTA")->capture_default_str();
  cmd->add_option("--limit-queries", o->limit_queries, "Use the first N queries (0: all)")->capture_default_str();
  cmd->add_option("--reference-queries", o->reference_queries,
                  "Queries the (slow) reference runs on, and the fast path beside it")
      ->capture_default_str();
  cmd->add_option("--threads", o->threads, "Threads of the multi-threaded rows (0: all cores)")->capture_default_str();
  cmd->add_option("--device", o->device, "Rows to run: cpu, gpu (GPU rows and the CPU row they are checked against), or all")
      ->capture_default_str();
  cmd->add_option("--repeats", o->repeats, "GPU rows: timed runs after a warm-up (median)")->capture_default_str();
  cmd->callback([&action, o] { action = [o]() -> int { return run_bench(*o); }; });
}

}  // namespace screen::cli
