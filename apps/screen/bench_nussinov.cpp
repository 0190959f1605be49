// `screen bench nussinov`: timings of the Nussinov paths on random sequences, the human miRNA
// hairpins and the SARS-CoV-2 genome, with the seed papers' figures beside the rows they match.
// updates/s counts n^3/6 max-plus updates per sequence (the papers' measure of the O(n^3) work).
#include <fmt/format.h>
#include <omp.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "apps/screen/cli.hpp"
#include "common/error.hpp"
#include "gpu/device_info.hpp"
#include "manifest/param_rules.hpp"
#include "seq/sequence_set.hpp"
#include "stages/nussinov/cpu.hpp"
#include "stages/nussinov/cuda.hpp"
#include "stages/nussinov/fold.hpp"
#include "stages/nussinov/traceback.hpp"

namespace screen::cli {

namespace {

struct BenchOptions {
  std::string device = "cpu";
  bool quick = false;
  int threads = 0;
  int reference_max = 2000;
  bool genome_cpu = true;
  std::string hairpins = "data/hsa_hairpin_mirbase.fa";
  std::string genome = "data/sarscov2_NC_045512.2.fa";
  std::string fasta;            // only this file's records, folded the way `screen run` folds them
  std::size_t max_length = 0;   // records longer than this left out (0: none)
  std::size_t min_length = 0;   // records shorter than this left out
};

std::vector<std::uint8_t> random_sequence(int n) {
  std::mt19937 rng(static_cast<unsigned>(n) * 2654435761u);
  std::vector<std::uint8_t> s(static_cast<std::size_t>(n));
  for (auto& c : s) c = static_cast<std::uint8_t>(rng() % 4);
  return s;
}

double cube_updates(double n) { return n * n * n / 6.0; }

class Table {
 public:
  Table() {
    std::printf("%-22s %8s %-15s %7s %10s %12s %6s  %s\n", "case", "n", "path", "threads", "seconds", "updates/s",
                "score", "paper");
    std::fflush(stdout);
  }
  void row(const std::string& what, const std::string& n, const std::string& path, int threads, double seconds,
           double updates, const std::string& score, const std::string& paper) {
    std::printf("%-22s %8s %-15s %7d %10.3f %12.3e %6s  %s\n", what.c_str(), n.c_str(), path.c_str(), threads, seconds,
                updates / seconds, score.c_str(), paper.c_str());
    std::fflush(stdout);
  }
};

template <class F>
double timed(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string paper_for(int n, bool gpu, bool four_russians) {
  if (gpu && n == 10000) return "Li et al. 2014: 1.9 s (Tesla C2050)";
  if (gpu && n == 26000) return "Li et al. 2014: 23.9 s (Tesla C2050)";
  if (n == 6000 && (gpu || four_russians)) return "Frid & Gusfield FR CUDA: 2.5 s";
  return "";
}

// A FASTA data set for a row, or nothing (with a warning) when the file is not there.
std::unique_ptr<seq::SequenceSet> load_optional(const std::string& path) {
  if (!std::filesystem::exists(path)) {
    spdlog::warn("bench nussinov: {} not found; its rows are skipped (see --hairpins / --genome)", path);
    return nullptr;
  }
  return std::make_unique<seq::SequenceSet>(seq::read_fasta(path));
}

double set_updates(const seq::SequenceSet& set) {
  double u = 0;
  for (std::size_t k = 0; k < set.size(); ++k) u += cube_updates(static_cast<double>(set.length(k)));
  return u;
}

// --fasta: every record (up to --max-length) in one fold_batch call per path, as the engine's
// batches fold them (on the GPU: the long ones one by one, the rest in one batch call), with and
// without structures; the measure for the engine's Nussinov stage on the same sequences.
void fasta_rows(const BenchOptions& o, bool cpu, bool gpu, int threads, Table& table) {
  const seq::SequenceSet set = seq::read_fasta(o.fasta);
  std::vector<const std::uint8_t*> seqs;
  std::vector<int> lengths;
  double updates = 0, nt = 0;
  for (std::size_t k = 0; k < set.size(); ++k) {
    if (o.max_length > 0 && set.length(k) > o.max_length) continue;
    if (set.length(k) < o.min_length) continue;
    seqs.push_back(set.codes(k));
    lengths.push_back(static_cast<int>(set.length(k)));
    updates += cube_updates(static_cast<double>(set.length(k)));
    nt += static_cast<double>(set.length(k));
  }
  if (seqs.empty()) throw UsageError(fmt::format("bench nussinov: no record of {} within the length limits", o.fasta));
  const std::string name = fmt::format("{} x{}", std::filesystem::path(o.fasta).filename().string(), seqs.size());
  nussinov::Params p;
  // With structures, each is checked to re-score to its score (and the scores of the two passes to
  // agree): the score column says "ok" or what failed.
  std::vector<long long> scores;
  auto check = [&](const std::vector<nussinov::FoldResult>& r, bool tb) {
    if (scores.empty())
      for (const auto& x : r) scores.push_back(x.score);
    for (std::size_t k = 0; k < r.size(); ++k) {
      if (r[k].score != scores[k]) return std::string("scores differ");
      if (tb && nussinov::score_structure(seqs[k], lengths[k], p, r[k].structure) != r[k].score)
        return std::string("structure!=score");
    }
    return std::string("ok");
  };
  if (gpu) {  // warm-up outside the table: CUDA context creation and module loading
    const auto s = random_sequence(600);
    (void)nussinov::fold_gpu_long(s.data(), 600, p, false);
  }
  for (bool tb : {false, true}) {
    if (gpu) {
      std::vector<nussinov::FoldResult> r;
      const double t = timed([&] { r = nussinov::fold_batch(seqs, lengths, p, tb, nussinov::Method::gpu, threads); });
      table.row(name, fmt::format("{:.0f}", nt), tb ? "gpu+tb" : "gpu", 1, t, updates, check(r, tb), "");
    }
    if (cpu) {
      std::vector<nussinov::FoldResult> r;
      const double t =
          timed([&] { r = nussinov::fold_batch(seqs, lengths, p, tb, nussinov::Method::automatic, threads); });
      table.row(name, fmt::format("{:.0f}", nt), tb ? "cpu+tb" : "cpu", threads, t, updates, check(r, tb), "");
    }
  }
}

int run_bench(const BenchOptions& o) {
  if (o.device != "cpu" && o.device != "gpu" && o.device != "all")
    throw UsageError(fmt::format("--device must be cpu, gpu or all, not '{}'", o.device));
  const bool cpu = o.device != "gpu";
  bool gpu = o.device != "cpu";
  if (gpu && (gpu::gpu_count() == 0 || !nussinov::gpu_available())) {
    spdlog::warn("bench nussinov: no GPU rows ({})",
                 gpu::gpu_count() == 0 ? gpu::no_gpu_reason() : std::string("the Nussinov GPU path is not built"));
    gpu = false;
  }
  manifest::rules::require_option("--threads", manifest::rules::cpu_threads(o.threads));
  const int all = o.threads > 0 ? o.threads : omp_get_max_threads();
  std::vector<int> thread_counts{1};
  if (all > 1) thread_counts.push_back(all);
  nussinov::Params p;  // unit weights, min_loop 3: what the papers measured
  Table table;
  if (!o.fasta.empty()) {
    fasta_rows(o, cpu, gpu, all, table);
    return 0;
  }
  const auto hairpins = load_optional(o.hairpins);
  const auto genome = o.quick ? nullptr : load_optional(o.genome);

  if (cpu) {
    const std::vector<int> sizes = o.quick ? std::vector<int>{1000, 2000} : std::vector<int>{2000, 4000, 6000};
    for (int n : sizes) {
      const auto s = random_sequence(n);
      const std::string name = fmt::format("random {}", n);
      if (n <= o.reference_max) {
        nussinov::FoldResult r;
        const double t = timed([&] { r = nussinov::fold_reference(s.data(), n, p, false); });
        table.row(name, std::to_string(n), "reference", 1, t, cube_updates(n), std::to_string(r.score), "");
      }
      for (nussinov::Method m : {nussinov::Method::cpu, nussinov::Method::four_russians}) {
        for (int threads : thread_counts) {
          nussinov::FoldResult r;
          const double t = timed([&] { r = nussinov::fold(s.data(), n, p, false, m, threads); });
          table.row(name, std::to_string(n), nussinov::method_name(m), threads, t, cube_updates(n),
                    std::to_string(r.score), paper_for(n, false, m == nussinov::Method::four_russians));
        }
      }
    }
    if (hairpins) {
      for (nussinov::Method m : {nussinov::Method::cpu, nussinov::Method::four_russians}) {
        std::vector<nussinov::FoldResult> r;
        const double t = timed([&] { r = nussinov::fold_batch(*hairpins, p, true, m, all); });
        table.row(fmt::format("hairpins x{}", hairpins->size()), fmt::format("{}", hairpins->total_length()),
                  std::string(nussinov::method_name(m)) + "+tb", all, t, set_updates(*hairpins), "", "");
      }
    }
    if (genome && o.genome_cpu) {
      const int n = static_cast<int>(genome->length(0));
      nussinov::FoldResult r;
      const double t = timed([&] { r = nussinov::fold(genome->codes(0), n, p, false, nussinov::Method::automatic, all); });
      table.row("SARS-CoV-2 genome", std::to_string(n), "auto (cpu)", all, t, cube_updates(n), std::to_string(r.score),
                "");
    }
  }
  if (gpu) {
    {  // warm-up outside the table: CUDA context creation and module loading are not folding time
      const auto s = random_sequence(600);
      (void)nussinov::fold_gpu_long(s.data(), 600, p, false);
    }
    const std::vector<int> sizes =
        o.quick ? std::vector<int>{2000, 10000} : std::vector<int>{2000, 4000, 6000, 10000, 16000, 26000, 37000};
    for (int n : sizes) {
      const auto s = random_sequence(n);
      nussinov::FoldResult r;
      const double t = timed([&] { r = nussinov::fold_gpu_long(s.data(), n, p, false); });
      std::string score = std::to_string(r.score);
      if (n <= 6000 && nussinov::fold_cpu(s.data(), n, p, false, all).score != r.score) score += "!=cpu";
      table.row(fmt::format("random {}", n), std::to_string(n), "gpu long", 1, t, cube_updates(n), score,
                paper_for(n, true, false));
    }
    if (hairpins) {
      std::vector<const std::uint8_t*> seqs;
      std::vector<int> lengths;
      for (std::size_t k = 0; k < hairpins->size(); ++k) {
        seqs.push_back(hairpins->codes(k));
        lengths.push_back(static_cast<int>(hairpins->length(k)));
      }
      std::vector<nussinov::FoldResult> r;
      const double t = timed([&] { r = nussinov::fold_gpu_batch(seqs, lengths, p, true); });
      table.row(fmt::format("hairpins x{}", hairpins->size()), fmt::format("{}", hairpins->total_length()),
                "gpu batch+tb", 1, t, set_updates(*hairpins), "", "");
    }
    if (genome) {
      const int n = static_cast<int>(genome->length(0));
      nussinov::FoldResult r;
      const double t = timed([&] { r = nussinov::fold_gpu_long(genome->codes(0), n, p, false); });
      table.row("SARS-CoV-2 genome", std::to_string(n), "gpu long", 1, t, cube_updates(n), std::to_string(r.score), "");
    }
  }
  return 0;
}

}  // namespace

void add_bench_nussinov(CLI::App& bench, Action& action) {
  auto* cmd = bench.add_subcommand("nussinov", "Benchmark: Nussinov folding (CPU paths, GPU paths, paper figures)");
  auto o = std::make_shared<BenchOptions>();
  cmd->add_option("--device", o->device, "cpu, gpu or all")->capture_default_str();
  cmd->add_flag("--quick", o->quick, "Small sizes only, no genome");
  cmd->add_option("--threads", o->threads, "Threads of the 'all threads' rows (0: all cores)")->capture_default_str();
  cmd->add_option("--reference-max", o->reference_max, "Largest random size the plain reference runs on")
      ->capture_default_str();
  cmd->add_option("--hairpins", o->hairpins, "FASTA of the miRNA hairpins")->capture_default_str();
  cmd->add_option("--genome", o->genome, "FASTA of the genome")->capture_default_str();
  cmd->add_flag("!--no-genome-cpu", o->genome_cpu, "Skip the genome on the CPU (minutes on few cores)");
  cmd->add_option("--fasta", o->fasta,
                  "Only this FASTA's records, each path in one batch call as `screen run` folds them, with and "
                  "without structures");
  cmd->add_option("--max-length", o->max_length, "With --fasta: leave out records longer than this (0: none)")
      ->capture_default_str();
  cmd->add_option("--min-length", o->min_length, "With --fasta: leave out records shorter than this")
      ->capture_default_str();
  cmd->callback([&action, o] { action = [o]() -> int { return run_bench(*o); }; });
}

}  // namespace screen::cli
