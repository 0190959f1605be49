// `screen fold FASTA`: folding of every record of a FASTA file, one TSV row per record (name,
// length, score, dot-bracket structure): Nussinov through nussinov::fold_batch, or with
// --model turner the minimum free energy of the duplex energy model (docs/energy.md).
#include <fmt/format.h>
#include <omp.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "apps/screen/cli.hpp"
#include "apps/screen/h5_output.hpp"
#include "common/error.hpp"
#include "common/memory.hpp"
#include "common/output_file.hpp"
#include "common/progress.hpp"
#include "common/pair_weights.hpp"
#include "gpu/device_info.hpp"
#include "stages/energy/cuda.hpp"
#include "manifest/param_rules.hpp"
#include "seq/sequence_set.hpp"
#include "stages/energy/params.hpp"
#include "stages/energy/reference.hpp"
#include "stages/nussinov/cuda.hpp"
#include "stages/nussinov/fold.hpp"

namespace screen::cli {

namespace {

struct FoldOptions {
  std::string fasta;
  int min_loop = 3;
  int max_span = 0;
  std::string weights;
  bool no_traceback = false;
  std::string device = "auto";
  std::string method = "auto";
  int threads = 0;
  std::string format = "tsv";
  std::string out;
  std::string model = "nussinov";
  double temperature = 37.0;
};

// The Turner model's CPU fold: its reference (O(n^3) time, O(n^2) memory) for now.
constexpr std::size_t kTurnerMaxLength = 4000;

// --model turner: MFE (kcal/mol) and one MFE structure of each record, records in parallel.
int run_fold_turner(const FoldOptions& o) {
  if (o.format != "tsv") throw UsageError("--model turner writes TSV (--format h5 holds the Nussinov stage of `screen run`)");
  if (o.min_loop != 3 || o.max_span != 0 || !o.weights.empty() || o.method != "auto")
    throw UsageError("--min-loop, --max-span, --weights and --method are Nussinov options; --model turner has none");
  if (o.device != "cpu" && o.device != "gpu" && o.device != "auto")
    throw UsageError(fmt::format("--device must be cpu, gpu or auto, not '{}'", o.device));
  if (o.device == "gpu" && !energy::gpu_available())
    throw ResourceError("--device gpu: no usable GPU (" + gpu::no_gpu_reason() + ")");
  const bool on_gpu = o.device == "gpu" || (o.device == "auto" && energy::gpu_available());
  if (o.device == "auto" && !on_gpu) warn_unusable_gpus("screen fold");
  manifest::rules::require_option("--temperature", manifest::rules::energy_temperature(o.temperature));
  manifest::rules::require_option("--threads", manifest::rules::cpu_threads(o.threads));
  const energy::Model& m = energy::model_at(o.temperature);
  const seq::SequenceSet set = seq::read_fasta(o.fasta);
  for (const auto& skipped : set.skipped())
    spdlog::warn("{}: record '{}' skipped: {}", o.fasta, skipped.name, skipped.reason);
  for (std::size_t k = 0; k < set.size(); ++k)
    if (set.length(k) > kTurnerMaxLength)
      throw InputError(fmt::format("{}: record '{}' has {} nt; --model turner folds records of up to {} nt for now",
                                   o.fasta, set.record(k).name, set.length(k), kTurnerMaxLength));
  spdlog::info("fold: {} sequences, {} nt from {}, Turner 1999 model at {} degrees C, on the {}", set.size(),
               set.total_length(), o.fasta, o.temperature, on_gpu ? "GPU (records of up to 128 nt; longer ones on the CPU)" : "CPU");
  // The FASTA reader's letters (upper case, T as U, IUPAC letters as N): docs/energy.md.
  static const char kLetters[] = "ACGUN";
  const long long count = static_cast<long long>(set.size());
  std::vector<std::string> letters(set.size());
  for (std::size_t k = 0; k < set.size(); ++k) {
    letters[k].assign(set.length(k), 'N');
    for (std::size_t c = 0; c < letters[k].size(); ++c) letters[k][c] = kLetters[std::min<unsigned>(set.codes(k)[c], 4u)];
  }
  const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
  std::vector<energy::FoldResult> results(set.size());
  if (on_gpu && o.no_traceback) {
    energy::GpuDuplexFolder folder(0);
    const std::vector<int> e = folder.energies(letters, m, threads);
    for (std::size_t k = 0; k < e.size(); ++k) results[k].energy = e[k];
  } else if (on_gpu) {
    results = energy::fold_structures_gpu(letters, m, 0, threads);
  } else {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (long long k = 0; k < count; ++k)
      results[static_cast<std::size_t>(k)] = energy::fold_reference(letters[static_cast<std::size_t>(k)], m, !o.no_traceback);
  }
  std::vector<std::string> rows(set.size());
  for (std::size_t k = 0; k < set.size(); ++k)
    rows[k] = fmt::format("{}\t{}\t{:.2f}\t{}\n", set.record(k).name, set.length(k), energy::kcal(results[k].energy),
                          results[k].structure);
  OutputFile out(o.out);
  out.write("name\tlength\tenergy\tstructure\n");
  for (const auto& r : rows) out.write(r);
  out.commit();
  return 0;
}

// Sequences per fold_batch call: results are written (and progress logged) after each chunk.
constexpr std::size_t kChunkSequences = 2000;
constexpr std::size_t kChunkBases = 2'000'000;

// Lengths past INT_MAX (the fold paths' index type) count as INT_MAX: still far beyond any memory.
int clamp_to_int(std::size_t n) { return static_cast<int>(std::min<std::size_t>(n, std::numeric_limits<int>::max())); }

// Refuses, before any table is allocated, a record whose tables exceed this machine's memory.
void check_fold_memory(const seq::SequenceSet& set, const nussinov::Params& p, nussinov::Method method,
                       const std::string& fasta) {
  for (std::size_t k = 0; k < set.size(); ++k)
    require_memory(fmt::format("{}: record '{}' ({} nt)", fasta, set.record(k).name, set.length(k)),
                   nussinov::fold_memory_bytes(clamp_to_int(set.length(k)), p, method));
}

int run_fold(const FoldOptions& o) {
  if (o.model == "turner") return run_fold_turner(o);
  if (o.model != "nussinov") throw UsageError(fmt::format("--model must be nussinov or turner, not '{}'", o.model));
  if (o.format == "h5") {
    if (o.method != "auto") throw UsageError("--format h5 runs the engine's own method: leave --method auto");
    SingleStageJob j;
    j.command = "fold";
    j.stage_yaml = fmt::format("  nussinov:\n    min_loop: {}\n    max_span: {}\n    pairs: {}\n    traceback: {}\n",
                               o.min_loop, o.max_span, pairs_yaml(parse_pair_weights(o.weights, 1, 1, 1)), !o.no_traceback);
    j.queries = o.fasta;
    j.device = o.device;
    j.threads = o.threads;
    j.out = o.out;
    j.command_line = "screen fold " + o.fasta + " --format h5";
    write_single_stage_h5(j);
    return 0;
  }
  if (o.format != "tsv") throw UsageError(fmt::format("--format must be tsv or h5, not '{}'", o.format));
  namespace rules = manifest::rules;  // the manifest's stages.nussinov ranges
  rules::require_option("--min-loop", rules::nussinov_min_loop(o.min_loop));
  rules::require_option("--max-span", rules::nussinov_max_span(o.max_span, o.min_loop));
  rules::require_option("--threads", rules::cpu_threads(o.threads));

  nussinov::Params p;
  p.min_loop = o.min_loop;
  p.max_span = o.max_span;
  p.weights = parse_pair_weights(o.weights, 1, 1, 1);
  nussinov::Method method = nussinov::parse_method(o.method);
  if (method == nussinov::Method::gpu) throw UsageError("--method gpu: use --device gpu");

  bool use_gpu = false;
  if (o.device == "gpu") {
    if (method != nussinov::Method::automatic)
      throw UsageError(fmt::format("--method {} is a CPU method; it cannot run with --device gpu", o.method));
    if (gpu::gpu_count() == 0) throw ResourceError("--device gpu: no usable GPU (" + gpu::no_gpu_reason() + ")");
    if (!nussinov::gpu_available()) throw ResourceError("--device gpu: this screen has no Nussinov GPU path");
    use_gpu = true;
  } else if (o.device == "auto") {
    use_gpu = method == nussinov::Method::automatic && gpu::gpu_count() > 0 && nussinov::gpu_available();
    if (!use_gpu && method == nussinov::Method::automatic) warn_unusable_gpus("screen fold");
  } else if (o.device != "cpu") {
    throw UsageError(fmt::format("--device must be cpu, gpu or auto, not '{}'", o.device));
  }
  if (use_gpu) method = nussinov::Method::gpu;
  if (method == nussinov::Method::four_russians && !make_pair_table(p.weights).unit())
    throw UsageError("--method four-russians needs unit pair weights (every allowed pair weighs 1)");

  const seq::SequenceSet set = seq::read_fasta(o.fasta);
  for (const auto& skipped : set.skipped())
    spdlog::warn("{}: record '{}' skipped: {}", o.fasta, skipped.name, skipped.reason);
  check_fold_memory(set, p, method, o.fasta);
  const std::size_t total = set.size();
  spdlog::info("fold: {} sequences, {} nt from {} on {} (method {})", total, set.total_length(), o.fasta,
               use_gpu ? "GPU" : "CPU", nussinov::method_name(method));

  OutputFile out(o.out);
  out.write("name\tlength\tscore\tstructure\n");
  Progress progress("fold", "nt", set.total_length());
  std::size_t done = 0, done_bases = 0;
  while (done < total) {
    std::size_t last = done, bases = 0;
    while (last < total && last - done < kChunkSequences && (bases == 0 || bases + set.length(last) <= kChunkBases))
      bases += set.length(last++);
    const auto results = nussinov::fold_batch(set, p, !o.no_traceback, method, o.threads, done, last);
    std::string text;
    for (std::size_t k = done; k < last; ++k) {
      const auto& r = results[k - done];
      text += fmt::format("{}\t{}\t{}\t{}\n", set.record(k).name, set.length(k), format_score(r.score, p.weights.scale),
                          r.structure);
    }
    out.write(text);
    done = last;
    done_bases += bases;
    progress.update(done_bases);
  }
  out.commit();
  spdlog::info("fold: {} sequences ({} nt) folded in {}", total, done_bases, human_duration(progress.seconds()));
  return 0;
}

}  // namespace

void add_fold(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("fold", "Fold single strands (Nussinov) on FASTA input; TSV name, length, score, structure");
  auto o = std::make_shared<FoldOptions>();
  cmd->add_option("fasta", o->fasta, "FASTA file (plain or gzip)")->required();
  cmd->add_option("--min-loop", o->min_loop, "Unpaired bases a hairpin needs at least (a pair (i,j) needs j-i > N)")
      ->capture_default_str();
  cmd->add_option("--max-span", o->max_span, "Local folding: a pair (i,j) needs j-i < N (0: unlimited)")
      ->capture_default_str();
  cmd->add_option("--weights", o->weights, "Pair weights, multiples of 0.5, e.g. CG=3,AU=2,GU=1 (default 1 each)");
  cmd->add_flag("--no-traceback", o->no_traceback, "Scores only (the structure column is left empty)");
  cmd->add_option("--device", o->device, "cpu, gpu, or auto (the GPU when one is usable)")->capture_default_str();
  cmd->add_option("--method", o->method, "CPU method: auto, reference, cpu, four-russians (unit weights)")
      ->capture_default_str();
  cmd->add_option("--threads", o->threads, "CPU threads (0: all cores)")->capture_default_str();
  cmd->add_option("--model", o->model,
                  "nussinov (maximum weighted pairs), or turner (minimum free energy, Turner 1999 as Vienna RNA 1.x; "
                  "docs/energy.md; the energy column replaces the score)")
      ->capture_default_str();
  cmd->add_option("--temperature", o->temperature, "--model turner: degrees C")->capture_default_str();
  cmd->add_option("--format", o->format, "tsv, or h5 (the results file `screen run` writes; needs --out)")->capture_default_str();
  cmd->add_option("--out", o->out, "Output file (default: standard output)");
  cmd->callback([&action, o] { action = [o]() -> int { return run_fold(*o); }; });
}

}  // namespace screen::cli
