// `screen bench energy`: duplex free energies per second (docs/energy.md) for the reference fold
// the fast CPU path on one and on all threads, and the GPU (the set, then many copies of it in one
// batch), on the duplex strings of miRanda hits: those of
// QUERIES x TARGETS found by `screen align` (default: the human microRNAs against the SARS-CoV-2
// genome in data/), or the first column of a TSV (--duplexes, e.g. tests/data/energy/duplex_folds_30C.tsv).
// --transcriptome: the end-to-end case instead (bench miranda's transcriptome rows, with energies).
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "apps/screen/cli.hpp"
#include "common/error.hpp"
#include "seq/sequence_set.hpp"
#include "gpu/device_info.hpp"
#include "stages/energy/cpu.hpp"
#include "stages/energy/cuda.hpp"
#include "stages/energy/params.hpp"
#include "stages/energy/reference.hpp"
#include "stages/miranda/align_batch.hpp"
#include "stages/miranda/display_letters.hpp"

namespace screen::cli {

namespace {

struct BenchEnergyOptions {
  std::string queries = "data/hsa_mature_mirbase.fa";
  std::string targets = "data/sarscov2_NC_045512.2.fa";
  std::string duplexes;
  double temperature = 30.0;
  int threads = 0;
  int reference_sample = 2000;
  int gpu_device = 0;
  int gpu_copies = 50;
  std::string transcriptome;  // the transcriptome case instead of the duplex rows
};

std::vector<std::string> duplexes_from_tsv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open");
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    const std::string s = line.substr(0, line.find('\t'));
    if (s.empty() || s == "fold_sequence" || s == "sequence") continue;  // a header
    out.push_back(s);
  }
  return out;
}

std::vector<std::string> duplexes_from_hits(const std::string& queries, const std::string& targets, int threads) {
  seq::FastaOptions fo;
  fo.mask_x = true;
  fo.skip_whitespace = true;
  const seq::SequenceSet q = seq::read_fasta(queries, fo), t = seq::read_fasta(targets, fo);
  const std::vector<std::string> ql = miranda::read_display_letters(queries, q), tl = miranda::read_display_letters(targets, t);
  miranda::BatchOptions o;
  o.method = miranda::Method::cpu;
  o.threads = threads;
  if (!ql.empty()) o.query_letters = &ql;
  if (!tl.empty()) o.target_letters = &tl;
  std::vector<std::string> out;
  for (const auto& r : miranda::align_batch(q, t, miranda::Params{}, o))
    for (const auto& h : r.hits) out.push_back(miranda::duplex_string(h));
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int run_bench_energy(const BenchEnergyOptions& opt) {
  const int threads = opt.threads > 0 ? opt.threads : omp_get_max_threads();
  if (!opt.transcriptome.empty()) {
    // The transcriptome case: every query against the targets, end to end with energies on the GPU.
    bench_transcriptome_with_energies(opt.queries, opt.transcriptome, opt.threads);
    return 0;
  }
  const std::vector<std::string> seqs =
      opt.duplexes.empty() ? duplexes_from_hits(opt.queries, opt.targets, threads) : duplexes_from_tsv(opt.duplexes);
  if (seqs.empty()) throw InputError("no duplexes to fold");
  double letters = 0;
  for (const auto& s : seqs) letters += static_cast<double>(s.size());
  fmt::print("{} duplexes ({}), {:.1f} letters on average, {} degrees C\n", seqs.size(),
             opt.duplexes.empty() ? fmt::format("the hits of {} x {}", opt.queries, opt.targets) : opt.duplexes,
             letters / static_cast<double>(seqs.size()), opt.temperature);
  const energy::Model& m = energy::model_at(opt.temperature);
  fmt::print("{:<26} {:>8} {:>10} {:>10} {:>14} {:>16}\n", "path", "threads", "duplexes", "seconds", "duplexes/s",
             "per thread /s");
  auto row = [&](const char* path, int th, std::size_t count, double s) {
    fmt::print("{:<26} {:>8} {:>10} {:>10.3f} {:>14.0f} {:>16.0f}\n", path, th, count, s, static_cast<double>(count) / s,
               static_cast<double>(count) / s / th);
  };
  // The reference on a sample (it is the slow definition); the fast path checked against it there.
  const std::size_t sample = std::min<std::size_t>(seqs.size(), static_cast<std::size_t>(std::max(1, opt.reference_sample)));
  std::vector<int> ref(sample);
  auto t0 = std::chrono::steady_clock::now();
  for (std::size_t k = 0; k < sample; ++k) ref[k] = energy::fold_reference(seqs[k], m, false).energy;
  row("reference", 1, sample, seconds_since(t0));
  std::vector<int> one;
  t0 = std::chrono::steady_clock::now();
  one = energy::fold_energies(seqs, m, 1);
  row("cpu (fast path)", 1, seqs.size(), seconds_since(t0));
  t0 = std::chrono::steady_clock::now();
  const std::vector<int> all = energy::fold_energies(seqs, m, threads);
  row("cpu (fast path)", threads, seqs.size(), seconds_since(t0));
  if (all != one) throw Error(ExitCode::internal, "bench energy: the fast path's energies depend on the threads");
  for (std::size_t k = 0; k < sample; ++k)
    if (one[k] != ref[k])
      throw Error(ExitCode::internal, fmt::format("bench energy: duplex {} ({}): fast path {} != reference {}", k + 1,
                                                  seqs[k], one[k], ref[k]));
  if (!energy::gpu_available()) {
    fmt::print("gpu: {}\n", gpu::no_gpu_reason().empty() ? "no usable GPU" : gpu::no_gpu_reason());
    return 0;
  }
  // The GPU: the set once (checked equal to the CPU path), then `gpu_copies` copies of it in one
  // batch, enough strings to fill the GPU: the wall time (packing, copies, kernels, the CPU fallback)
  // and the kernels' own time.
  energy::GpuDuplexFolder folder(opt.gpu_device);
  t0 = std::chrono::steady_clock::now();
  const std::vector<int> gpu_once = folder.energies(seqs, m, threads);
  row("gpu, the set once", 1, seqs.size(), seconds_since(t0));
  if (gpu_once != all) throw Error(ExitCode::internal, "bench energy: the GPU's energies differ from the CPU path's");
  std::vector<std::string> many;
  many.reserve(seqs.size() * static_cast<std::size_t>(opt.gpu_copies));
  for (int c = 0; c < opt.gpu_copies; ++c) many.insert(many.end(), seqs.begin(), seqs.end());
  const double kernel_before = folder.stats().kernel_ms;
  const std::size_t cpu_before = folder.stats().on_cpu;
  t0 = std::chrono::steady_clock::now();
  const std::vector<int> gpu_many = folder.energies(many, m, threads);
  const double wall = seconds_since(t0);
  row("gpu, copies, end to end", 1, many.size(), wall);
  row("gpu, copies, kernels", 1, many.size(), (folder.stats().kernel_ms - kernel_before) / 1000.0);
  for (std::size_t k = 0; k < many.size(); ++k)
    if (gpu_many[k] != all[k % seqs.size()]) throw Error(ExitCode::internal, "bench energy: the GPU's energies differ on the copies");
  fmt::print("gpu: {} copies of the set in one batch; {} strings folded by the CPU fallback (over {} letters or "
             "out of the kernel's 16-bit range)\n",
             opt.gpu_copies, folder.stats().on_cpu - cpu_before, 128);
  return 0;
}

}  // namespace

void add_bench_energy(CLI::App& bench, Action& action) {
  auto* cmd = bench.add_subcommand("energy", "Benchmark: duplex free energies per second (reference, CPU paths, GPU)");
  auto opt = std::make_shared<BenchEnergyOptions>();
  cmd->add_option("--queries", opt->queries, "microRNA FASTA whose hits give the duplexes")->capture_default_str();
  cmd->add_option("--targets", opt->targets, "Target FASTA whose hits give the duplexes")->capture_default_str();
  cmd->add_option("--duplexes", opt->duplexes, "Or: a TSV whose first column holds duplex strings (a header is skipped)");
  cmd->add_option("--temperature", opt->temperature, "Degrees C")->capture_default_str()->check(CLI::Range(-50.0, 100.0));
  cmd->add_option("--threads", opt->threads, "Threads of the many-thread row (0: all cores)")->capture_default_str();
  cmd->add_option("--reference-sample", opt->reference_sample, "Duplexes the reference folds (it is slow)")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000000));
  cmd->add_option("--gpu", opt->gpu_device, "The GPU of the GPU rows")->capture_default_str()->check(CLI::NonNegativeNumber);
  cmd->add_option("--gpu-copies", opt->gpu_copies, "Copies of the set folded in one GPU batch (throughput row)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--transcriptome", opt->transcriptome,
                  "Instead: the transcriptome case, --queries against this FASTA end to end on the GPU with energies "
                  "(scan, post-processing, energies, every hit written as TSV; the first 20 queries checked against the CPU)");
  cmd->callback([&action, opt] { action = [opt]() -> int { return run_bench_energy(*opt); }; });
}

}  // namespace screen::cli
