// `screen bench miranda`: timings of the miRanda-style alignment paths on human microRNAs against the
// SARS-CoV-2 genome and (GPU rows) against a ~100-Mnt synthetic transcriptome, with miRanda 3.3a's and
// CUDA-miRanda's own figures for comparison. Cells = sum over pairs of Lq x Lr; GCUPS = cells /
// seconds / 1e9. The reference runs on a subset only (it is slow); every row prints the cells it
// measured, nothing is extrapolated.
#include <fmt/format.h>
#include <omp.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "apps/screen/async_writer.hpp"
#include "apps/screen/cli.hpp"
#include "gpu/device_info.hpp"
#include "manifest/param_rules.hpp"
#include "common/error.hpp"
#include "seq/sequence_set.hpp"
#include "stages/miranda/align_batch.hpp"
#include "stages/miranda/cpu_scan.hpp"
#include "stages/miranda/cuda.hpp"
#include "stages/miranda/miranda_format.hpp"

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
  std::string transcriptome = "data/generated/human_transcripts.fa.gz";
  std::string hits_out;  // the transcriptome case's TSV ("" : a temporary file, removed)
  int check_queries = 20;
  bool energy = false;  // the transcriptome case's end-to-end row with duplex energies (miRanda's default)
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
    std::printf("(no GPU rows: no usable GPU: %s)\n", gpu::no_gpu_reason().c_str());
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

// The TSV rows of a part's hits, formatted on all threads, handed to the writer in order; returns
// their bytes.
std::size_t write_rows(AsyncWriter& out, const std::vector<miranda::PairResult>& part, const seq::SequenceSet& q,
                       const seq::SequenceSet& t, int threads) {
  std::vector<std::string> text(static_cast<std::size_t>(threads));
  const long long n = static_cast<long long>(part.size());
#pragma omp parallel num_threads(threads)
  {
    const long long th = omp_get_thread_num(), nth = omp_get_num_threads();
    std::string& mine = text[static_cast<std::size_t>(th)];
    for (long long k = n * th / nth; k < n * (th + 1) / nth; ++k) {
      const miranda::PairResult& r = part[static_cast<std::size_t>(k)];
      for (const miranda::Hit& h : r.hits)
        mine += miranda::format_tsv_row(h, q.record(r.query_index).name, t.record(r.target_index).name);
    }
  }
  std::size_t bytes = 0;
  for (const std::string& s : text) bytes += s.size();
  out.push(std::move(text));
  return bytes;
}

// The transcriptome case: every query against a synthetic transcriptome (~100 Mnt). The GPU scan
// alone (every batch's candidates downloaded), then end to end through align_batch_streamed with
// every hit written as a TSV row; the first check_queries queries' hits compared with the CPU path's.
void run_transcriptome_rows(const seq::SequenceSet& q, const BenchOptions& o, int threads) {
  if (!std::filesystem::exists(o.transcriptome)) {
    std::printf("(no transcriptome rows: %s not found; build target `transcriptome` or pass --transcriptome)\n",
                o.transcriptome.c_str());
    return;
  }
  seq::FastaOptions fo;
  fo.mask_x = true;
  const auto t0 = std::chrono::steady_clock::now();
  const seq::SequenceSet t = seq::read_fasta(o.transcriptome, fo);
  const double read_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cells = cells_of(q, t);
  std::printf("transcriptome %s: %zu records, %zu nt (read in %.2f s, not counted below)\n", o.transcriptome.c_str(),
              t.size(), t.total_length(), read_s);
  const std::string what = fmt::format("{} x {:.1f} Mnt", q.size(), static_cast<double>(t.total_length()) / 1e6);
  std::vector<miranda::SeqView> qv, tv;
  for (std::size_t k = 0; k < q.size(); ++k) qv.push_back(miranda::SeqView{q.codes(k), q.length(k), nullptr});
  for (std::size_t k = 0; k < t.size(); ++k) tv.push_back(miranda::SeqView{t.codes(k), t.length(k), nullptr});
  const miranda::ScoreModel model = miranda::make_score_model(miranda::Params{});
  // The scan alone.
  {
    const auto s0 = std::chrono::steady_clock::now();
    miranda::GpuScanner scanner(qv.data(), qv.size(), tv.data(), tv.size(), model);
    std::vector<miranda::FoundCandidate> found;
    std::size_t candidates = 0;
    const std::size_t nb = scanner.batches();
    if (nb > 0) scanner.submit(0);
    for (std::size_t b = 0; b < nb; ++b) {
      found.clear();
      scanner.collect(b, found);
      if (b + 1 < nb) scanner.submit(b + 1);
      candidates += found.size();
    }
    const double w = std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
    const miranda::GpuScanStats& st = scanner.stats();
    const double k = st.kernel_ms / 1e3;
    std::printf("%-22s %-16s %7s %8zu %11.3e %9.3f %8.1f %7s  (%zu candidate cells; %zu batches of %zu columns, "
                "lanes of %d; %.2f GB on the GPU; %d retries)\n",
                what.c_str(), "gpu-scan/wall", "-", q.size(), cells, w, cells / w / 1e9, "-", candidates, st.batches,
                st.batch_columns, st.chunk_columns, static_cast<double>(st.device_bytes) / 1e9, st.retries);
    std::printf("%-22s %-16s %7s %8zu %11.3e %9.3f %8.1f %7s\n", what.c_str(), "gpu-scan/kernel", "-", q.size(), cells,
                k, cells / k / 1e9, "-");
  }
  // End to end: scan, exact post-processing and every hit written.
  const std::string path = o.hits_out.empty()
                               ? (std::filesystem::temp_directory_path() / "screen-bench-miranda-hits.tsv").string()
                               : o.hits_out;
  std::FILE* out = std::fopen(path.c_str(), "wb");
  if (out == nullptr) throw ResourceError("bench miranda: cannot write " + path);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> closer(out, &std::fclose);
  miranda::Params params;  // the scan rows and -noenergy, or miRanda's default run with energies
  params.energy = o.energy;
  const std::string header = miranda::format_tsv_header(o.energy);
  std::fwrite(header.data(), 1, header.size(), out);
  const std::size_t check = std::min<std::size_t>(static_cast<std::size_t>(std::max(o.check_queries, 0)), q.size());
  std::vector<miranda::PairResult> sample;
  std::size_t hits = 0, pairs = 0, bytes = header.size();
  miranda::GpuPipelineTimes times;
  miranda::BatchOptions bo;
  bo.method = miranda::Method::gpu;
  bo.threads = threads;
  bo.gpu_times = &times;
  const auto e0 = std::chrono::steady_clock::now();
  {
    AsyncWriter writer([out, &path](const std::string& text) {
      if (std::fwrite(text.data(), 1, text.size(), out) != text.size())
        throw ResourceError("bench miranda: cannot write " + path);
    });
    miranda::align_batch_streamed(q, t, params, bo, [&](std::vector<miranda::PairResult>& part) {
      bytes += write_rows(writer, part, q, t, threads);
      for (miranda::PairResult& r : part) {
        hits += r.hits.size();
        ++pairs;
        if (r.query_index < check) sample.push_back(std::move(r));
      }
    });
    writer.finish();
  }
  if (std::fflush(out) != 0) throw ResourceError("bench miranda: cannot write " + path);
  const double e = std::chrono::duration<double>(std::chrono::steady_clock::now() - e0).count();
  closer.reset();
  std::printf("%-22s %-16s %7d %8zu %11.3e %9.3f %8.1f %7zu  (%zu pairs; %.2f GB of TSV written to %s)\n", what.c_str(),
              "gpu end-to-end", threads, q.size(), cells, e, cells / e / 1e9, hits, pairs,
              static_cast<double>(bytes) / 1e9, path.c_str());
  std::printf("  (end to end, s: setup %.2f, waiting for the GPU %.2f, next batch packed and uploaded %.2f, grouping "
              "%.2f, exact post-processing %.2f, energies (duplexes built, GPU waited for, filter) %.2f, rows formatted and waiting for results to be freed %.2f, queries on the CPU %.2f, writing not "
              "overlapped %.2f)\n",
              times.setup, times.scan_wait, times.submit, times.group, times.finish, times.energy, times.sink,
              times.cpu_queries,
              e - (times.setup + times.scan_wait + times.submit + times.group + times.finish + times.energy +
                   times.sink + times.cpu_queries));
  if (o.hits_out.empty()) std::filesystem::remove(path);
  if (check > 0) {
    std::sort(sample.begin(), sample.end(), [](const miranda::PairResult& a, const miranda::PairResult& b) {
      return a.query_index != b.query_index ? a.query_index < b.query_index : a.target_index < b.target_index;
    });
    miranda::BatchOptions co;
    co.method = miranda::Method::cpu;
    co.threads = threads;
    co.query_end = check;
    const auto c0 = std::chrono::steady_clock::now();
    const std::vector<miranda::PairResult> cpu = miranda::align_batch(q, t, params, co);
    const double c = std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
    std::printf("  (first %zu queries x the transcriptome: gpu hits %s the cpu-scan's; %zu hits; cpu-scan %.2f s on %d "
                "threads)\n",
                check, same_hits(cpu, sample) ? "equal" : "DIFFER FROM", hit_count(cpu), c, threads);
  }
}

int run_bench(const BenchOptions& o) {
  if (o.device != "cpu" && o.device != "gpu" && o.device != "all")
    throw UsageError(fmt::format("--device must be cpu, gpu or all, not '{}'", o.device));
  if (o.repeats < 1) throw UsageError("--repeats must be >= 1");
  const bool cpu_rows = o.device != "gpu", gpu_rows = o.device != "cpu";
  manifest::rules::require_option("--threads", manifest::rules::cpu_threads(o.threads));
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
  if (gpu_rows && miranda::gpu_available() && !o.transcriptome.empty()) run_transcriptome_rows(queries, o, threads);
  std::printf(
      "miRanda 3.3a (-noenergy), for comparison: 200 microRNAs x the genome, 1.28e8 cells in about 3-4.5 s on one "
      "core = 0.03-0.04 GCUPS\n");
  if (gpu_rows)
    std::printf("CUDA-miRanda (Wang et al. 2014), for comparison: 1.8 GCUPS per Tesla M2090\n");
  return 0;
}

}  // namespace

void bench_transcriptome_with_energies(const std::string& queries, const std::string& transcriptome, int threads) {
  if (!miranda::gpu_available()) throw ResourceError("the transcriptome case runs on the GPU: " + gpu::no_gpu_reason());
  BenchOptions o;
  o.queries = queries;
  o.transcriptome = transcriptome;
  o.energy = true;
  const int th = threads > 0 ? threads : omp_get_max_threads();
  seq::FastaOptions fo;
  fo.mask_x = true;
  run_transcriptome_rows(seq::read_fasta(queries, fo), o, th);
}

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
  cmd->add_option("--transcriptome", o->transcriptome,
                  "GPU rows: the transcriptome-scale case's targets (\"\": no such case)")
      ->capture_default_str();
  cmd->add_option("--hits-out", o->hits_out, "Transcriptome case: keep its TSV of hits here (default: a temporary file)");
  cmd->add_option("--check-queries", o->check_queries,
                  "Transcriptome case: queries whose hits are compared with the CPU path's")
      ->capture_default_str();
  cmd->add_flag("--energy", o->energy,
               "Transcriptome case: the end-to-end row with duplex energies (miRanda's default run; on the GPU)");
  cmd->callback([&action, o] { action = [o]() -> int { return run_bench(*o); }; });
}

}  // namespace screen::cli
