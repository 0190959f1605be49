// `screen bench bpmax`: the BPMax CPU and GPU paths on the thesis's setting, a 23-nt query (the
// svRNA set's 23-nt record) against random targets of 1,000, 5,000 and 20,000 nt with target window
// 128, and 23 x 200 unwindowed (the original program's own benchmark), with the published figures
// beside. GPU rows time one interact_pairs_gpu call (allocation, transfers and site included; the
// kernels' own time beside) after a warm-up call, and are checked against the CPU row's score.
// `--targets FILE` adds the screen: every query of --query against every record of FILE on the GPU
// (the thesis: about a day per svRNA for 32,000 transcripts on a Titan V).
//
// GOPS = term-1 max-plus updates / seconds / 1e9, where the updates are counted exactly on the
// banded tables (bpmax::term1_updates):
//   [sum over d1 < L1 of (N - d1) d1] x [sum over d2 < L2 of (M - d2) d2],
// about (N^3/6) x M x W2^2/2 for the windowed case (3.28e11 for 23 x 20,000, W2 = 128) and
// (N^3/6) x (M^3/6) unwindowed. Terms 2 to 7 are not counted (about a quarter more work).
#include <fmt/format.h>
#include <omp.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "apps/screen/cli.hpp"
#include "manifest/param_rules.hpp"
#include "common/error.hpp"
#include "gpu/device_info.hpp"
#include "seq/sequence_set.hpp"
#include "stages/bpmax/cpu.hpp"
#include "stages/bpmax/cuda.hpp"
#include "stages/bpmax/interact.hpp"

namespace screen::cli {

namespace {

struct BenchOptions {
  bool quick = false;
  int threads = 0;
  bool reference = true;
  std::string query = "data/svrna/sarscov2_svrna.fa";
  std::string device = "cpu";
  std::string targets;     // screen case: every query of `query` against these records, on the GPU
  std::size_t first_target = 0;  // screen case: records from this one on
  std::size_t max_targets = 0;
  int gpu = 0;
  unsigned max_shared_kb = 0;  // GPU rows: shared memory a block may use, KB (0: the GPU's)
  int slab_groups = 2;          // GPU rows: bpmax::GpuOptions::slab_groups
  bool prune = true;            // GPU rows: bpmax::GpuOptions::prune_windows
};

// What the pruning of target windows skipped, for a GPU row.
std::string pruning_note(const bpmax::GpuStats& st) {
  const bpmax::PruneStats& ps = st.pruning;
  if (ps.pairs == 0) return "";
  return fmt::format("; windows pruned: {} of {} kept, {:.1f}% of the target bases scored (with the seeds)",
                     ps.windows_kept, ps.windows, 100.0 * static_cast<double>(ps.positions_scored) / static_cast<double>(ps.positions));
}

std::vector<std::uint8_t> random_target(int m) {
  std::mt19937 rng(static_cast<unsigned>(m) * 2654435761u + 17u);
  std::vector<std::uint8_t> s(static_cast<std::size_t>(m));
  for (auto& c : s) c = static_cast<std::uint8_t>(rng() % 4);
  return s;
}

// The svRNA set's 23-nt record, or a random 23-mer (with a warning) when the file is not there.
std::vector<std::uint8_t> load_query(const std::string& path, std::string& name) {
  if (std::filesystem::exists(path)) {
    const seq::SequenceSet set = seq::read_fasta(path);
    for (std::size_t k = 0; k < set.size(); ++k)
      if (set.length(k) == 23) {
        name = set.record(k).name;
        return std::vector<std::uint8_t>(set.codes(k), set.codes(k) + 23);
      }
    spdlog::warn("bench bpmax: {} has no 23-nt record; using a random 23-mer", path);
  } else {
    spdlog::warn("bench bpmax: {} not found; using a random 23-mer (see --query)", path);
  }
  name = "random23";
  std::mt19937 rng(23);
  std::vector<std::uint8_t> s(23);
  for (auto& c : s) c = static_cast<std::uint8_t>(rng() % 4);
  return s;
}

template <class F>
double timed(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Every query of the --query file against the records of --targets on the GPU, in batches of pairs
// (the call cuts them by memory), with the scores' sum as a checksum.
void screen_case(const BenchOptions& o, int threads) {
  const seq::SequenceSet queries = seq::read_fasta(o.query);
  const seq::SequenceSet targets = seq::read_fasta(o.targets);
  const std::size_t first = std::min(o.first_target, targets.size());
  const std::size_t end = o.max_targets > 0 ? std::min(first + o.max_targets, targets.size()) : targets.size();
  const std::size_t nt = end - first;
  bpmax::Params p;
  p.target_window = 128;
  std::vector<bpmax::PairInput> pairs;
  double updates = 0, nucleotides = 0;
  for (std::size_t t = first; t < end; ++t) nucleotides += static_cast<double>(targets.length(t));
  for (std::size_t q = 0; q < queries.size(); ++q)
    for (std::size_t t = first; t < end; ++t) {
      pairs.push_back({{queries.codes(q), static_cast<int>(queries.length(q))},
                       {targets.codes(t), static_cast<int>(targets.length(t))}, q, t});
      updates += bpmax::term1_updates(pairs.back().query.length, pairs.back().target.length, p);
    }
  bpmax::GpuOptions go;
  go.device = o.gpu;
  go.cpu_threads = threads;
  go.max_shared_bytes = std::size_t{o.max_shared_kb} * 1024;
  go.slab_groups = o.slab_groups;
  go.prune_windows = o.prune;
  bpmax::GpuStats st;
  long long sum = 0;
  const double t = timed([&] {
    for (const auto& r : bpmax::interact_pairs_gpu(pairs, p, bpmax::TracebackMode::none(), go, &st)) sum += r.site.score;
  });
  std::printf("\nscreen: %zu queries x %zu targets (records %zu to %zu, %.1f Mnt) of %s, W2 = 128, on GPU %d\n",
              queries.size(), nt, first + 1, end, nucleotides / 1e6, o.targets.c_str(), o.gpu);
  std::printf("  %zu pairs (%zu on the GPU, %zu on the CPU), %.3g term-1 updates\n", pairs.size(), st.gpu_pairs,
              st.cpu_pairs, updates);
  std::printf("  %.1f s wall (kernels %.1f s), %.1f GOPS, score checksum %lld\n", t, st.kernel_ms / 1e3,
              updates / t / 1e9, sum);
  std::printf("  host: %.2f s preparing batches, %.2f s waiting for the GPU, %.2f s pruning between phases\n",
              st.prepare_ms / 1e3, st.wait_ms / 1e3, st.prune_host_ms / 1e3);
  std::printf("  preparing: %.2f s descriptors and codes, %.2f s slab maps and work lists, %.2f s allocations and "
              "uploads\n",
              st.describe_ms / 1e3, st.lists_ms / 1e3, st.upload_ms / 1e3);
  std::printf("  %lld of %lld slabs computed (a repeated query substring's slab is computed once; the updates "
              "above count every slab)\n",
              st.slabs_computed, st.slabs);
  if (st.pruning.pairs > 0)
    std::printf("  windows pruned in %lld pairs: %lld of %lld windows kept, %.1f%% of their target bases scored (seeds "
                "included; the updates above count every window), bounds %.2f s\n",
                st.pruning.pairs, st.pruning.windows_kept, st.pruning.windows,
                100.0 * static_cast<double>(st.pruning.positions_scored) / static_cast<double>(st.pruning.positions),
                st.bounds_ms / 1e3);
  else
    std::printf("  no windows pruned%s\n", o.prune ? "" : " (--no-prune)");
  std::printf("  thesis (Titan V): about 1 day per svRNA for 32,000 transcripts\n");
}

int run_bench(const BenchOptions& o) {
  manifest::rules::require_option("--threads", manifest::rules::cpu_threads(o.threads));
  if (o.device != "cpu" && o.device != "gpu" && o.device != "all")
    throw UsageError(fmt::format("--device must be cpu, gpu or all, not '{}'", o.device));
  const bool cpu_rows = o.device != "gpu", gpu_rows = o.device != "cpu";
  if (gpu_rows && !bpmax::gpu_available()) throw ResourceError("bench bpmax --device gpu: no usable GPU (" + gpu::no_gpu_reason() + ")");
  const int all = o.threads > 0 ? o.threads : omp_get_max_threads();
  std::string qname;
  const std::vector<std::uint8_t> query = load_query(o.query, qname);
  const int n = static_cast<int>(query.size());
  spdlog::info("bench bpmax: query {} ({} nt), weights CG=3 AU=2 GU=1, {} threads available", qname, n, all);

  std::printf("%-16s %4s %6s %4s %-10s %7s %9s %9s %7s %6s  %s\n", "case", "N", "M", "W2", "path", "threads", "seconds",
              "table_MB", "GOPS", "score", "reference figures");
  std::fflush(stdout);
  auto row = [&](const std::string& name, int m, int w2, const char* path, int threads, double seconds, double mb,
                 const bpmax::Params& p, long long score, const std::string& paper) {
    const double gops = bpmax::term1_updates(n, m, p) / seconds / 1e9;
    std::printf("%-16s %4d %6d %4s %-10s %7d %9.3f %9.1f %7.2f %6lld  %s\n", name.c_str(), n, m,
                w2 > 0 ? std::to_string(w2).c_str() : "-", path, threads, seconds, mb, gops, score, paper.c_str());
    std::fflush(stdout);
  };

  struct Case {
    int m, w2;
    bool quick;   // also in --quick
    bool single;  // also a 1-thread row
    std::string paper;
  };
  const std::vector<Case> cases{
      // The tables a traced GPU pair's structure is recomputed from (its site's window, 23 x 128 at W2 = 128),
      // one pair per thread: the one-thread row is the CPU cost of a structure.
      {128, 0, true, true, "a traceback's window, per traced pair"},
      {200, 0, true, true, "original BPMax: 19.2 s (2 cores)"},
      {1000, 128, true, true, ""},
      {5000, 64, false, false, ""},
      {5000, 128, true, false, ""},
      {5000, 129, false, false, "W2 over 128: the 64-column patch-up"},
      {20000, 128, false, false, "thesis: 3,056 s original (8-core Xeon), 4.79 s Titan V"},
  };
  for (const Case& c : cases) {
    if (o.quick && !c.quick) continue;
    const std::vector<std::uint8_t> target = random_target(c.m);
    bpmax::Params p;
    p.target_window = c.w2;
    const std::string name = c.w2 > 0 ? fmt::format("{}x{} w{}", n, c.m, c.w2) : fmt::format("{}x{}", n, c.m);
    const double mb = static_cast<double>(bpmax::cpu_table_bytes(n, c.m, p)) / 1e6;
    long long cpu_score = -1;
    std::vector<int> thread_counts;
    if (cpu_rows && (c.single || all == 1)) thread_counts.push_back(1);
    if (cpu_rows && all > 1) thread_counts.push_back(all);
    for (int threads : thread_counts) {
      bpmax::SiteResult r;
      const double t = timed([&] { r = bpmax::interact_cpu(query.data(), n, target.data(), c.m, p, false, threads); });
      cpu_score = r.score;
      row(name, c.m, c.w2, "cpu", threads, t, mb, p, r.score, c.paper);
    }
    if (gpu_rows) {
      const std::vector<bpmax::PairInput> one{{{query.data(), n}, {target.data(), c.m}, 0, 0}};
      bpmax::GpuOptions go;
      go.device = o.gpu;
      go.cpu_threads = all;
      go.max_shared_bytes = std::size_t{o.max_shared_kb} * 1024;
      go.slab_groups = o.slab_groups;
      go.prune_windows = o.prune;
      bpmax::interact_pairs_gpu(one, p, bpmax::TracebackMode::none(), go);  // warm-up: context, modules
      bpmax::GpuStats st;
      std::vector<bpmax::PairResult> r;
      const double t = timed([&] { r = bpmax::interact_pairs_gpu(one, p, bpmax::TracebackMode::none(), go, &st); });
      const double gpu_mb = static_cast<double>(bpmax::gpu_table_bytes(n, c.m, p)) / 1e6;
      if (cpu_score >= 0 && r[0].site.score != cpu_score)
        throw Error(ExitCode::internal,
                    fmt::format("bench bpmax: GPU score {} != CPU score {} on {}", r[0].site.score, cpu_score, name));
      row(name, c.m, c.w2, "gpu", 0, t, gpu_mb, p, r[0].site.score,
          fmt::format("kernels {:.4f} s (S {:.4f}, term 1 {:.4f}, patch-up {:.4f}){}{}", st.kernel_ms / 1e3,
                      st.single_ms / 1e3, st.term1_ms / 1e3, st.patch_ms / 1e3, pruning_note(st),
                      st.cpu_pairs > 0 ? (o.max_shared_kb > 0 ? "; ran on the CPU: its tables do not fit --max-shared-kb"
                                                               : "; ran on the CPU: its tables do not fit this GPU")
                      : c.m == 20000 ? "; kernel issue target <= 0.025 s" : ""));
    }
    if (cpu_rows && o.reference && !o.quick && c.m == 200) {
      bpmax::SiteResult r;
      const double t =
          timed([&] { r = bpmax::interact_reference(query.data(), n, target.data(), c.m, p, false); });
      const bpmax::Band b = bpmax::make_band(n, c.m, p);
      const double ref_mb = static_cast<double>(b.f_cell_count()) * 4 / 1e6;
      if (r.score != cpu_score) spdlog::error("bench bpmax: reference score {} != cpu score {}", r.score, cpu_score);
      row(name, c.m, c.w2, "reference", 1, t, ref_mb, p, r.score, "");
    }
  }
  if (!o.targets.empty()) screen_case(o, all);
  return 0;
}

}  // namespace

void add_bench_bpmax(CLI::App& bench, Action& action) {
  auto* cmd = bench.add_subcommand("bpmax", "Benchmark: BPMax interaction scoring (CPU and GPU paths, published figures)");
  auto o = std::make_shared<BenchOptions>();
  cmd->add_flag("--quick", o->quick, "Small targets only (128, 200, 1,000, 5,000 nt), no reference row");
  cmd->add_option("--threads", o->threads, "Threads of the 'all threads' rows (0: all cores)")->capture_default_str();
  cmd->add_flag("!--no-reference", o->reference, "Skip the plain reference on 23 x 200 (about 10 s)");
  cmd->add_option("--query", o->query, "FASTA holding the 23-nt query (its first 23-nt record)")->capture_default_str();
  cmd->add_option("--device", o->device, "Rows to run: cpu, gpu (GPU rows, checked against the CPU when both run), or all")
      ->capture_default_str();
  cmd->add_option("--gpu", o->gpu, "GPU index of the GPU rows")->capture_default_str();
  cmd->add_option("--max-shared-kb", o->max_shared_kb,
                  "GPU rows: shared memory a block may use, in KB, as on a smaller GPU (163: an A100; 0: this GPU's)")
      ->capture_default_str();
  cmd->add_option("--slab-groups", o->slab_groups,
                  "GPU rows: 2 runs each d1's slabs in two groups on two streams, 1 on one stream (to compare)")
      ->check(CLI::Range(1, 2))
      ->capture_default_str();
  cmd->add_flag("!--no-prune", o->prune,
                "GPU rows: compute every target window instead of skipping those whose bound is below a computed "
                "window's score (to compare; the sites are the same)");
  cmd->add_option("--targets", o->targets, "Also screen every --query record against these targets on the GPU (W2 128)");
  cmd->add_option("--first-target", o->first_target, "Start the screen at record K of --targets (0: the first)")
      ->capture_default_str();
  cmd->add_option("--max-targets", o->max_targets, "Only K records of --targets (0: all)")->capture_default_str();
  cmd->callback([&action, o] { action = [o]() -> int { return run_bench(*o); }; });
}

}  // namespace screen::cli
