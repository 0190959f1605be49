// `screen interact QUERIES.fa TARGETS.fa` (every query with every target) and
// `screen interact --pairs PAIRS.fa` (one QUERY&TARGET record per pair, the original BPMax
// program's input): BPMax site score and target interval per pair, and with --traceback the joint
// dot-bracket structure of the site, through bpmax::interact_pairs. TSV rows in (query, target)
// order; pairs are processed in chunks so that output and progress flow for large inputs.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "apps/screen/cli.hpp"
#include "apps/screen/h5_output.hpp"
#include "common/error.hpp"
#include "common/memory.hpp"
#include "common/output_file.hpp"
#include "common/pair_weights.hpp"
#include "common/progress.hpp"
#include "gpu/device_info.hpp"
#include "manifest/param_rules.hpp"
#include "seq/reverse_complement.hpp"
#include "seq/sequence_set.hpp"
#include "stages/bpmax/cpu.hpp"
#include "stages/bpmax/cuda.hpp"
#include "stages/bpmax/interact.hpp"
#include "stages/bpmax/pairs_reader.hpp"

namespace screen::cli {

namespace {

struct InteractOptions {
  std::vector<std::string> inputs;  // QUERIES.fa TARGETS.fa
  std::string pairs;                // or PAIRS.fa
  std::string weights;
  int query_window = 0;
  int target_window = 0;
  bool traceback = false;
  std::string device = "auto";
  std::string method = "auto";
  int threads = 0;
  std::string format = "tsv";
  std::string strand = "forward";
  std::string out;
};

// Term-1 updates per interact_pairs call (about a second of work on a few cores, or on the GPU), and pairs.
constexpr double kChunkUpdates = 2e10;
constexpr double kGpuChunkUpdates = 5e12;
constexpr std::size_t kChunkPairs = 4096;
constexpr std::size_t kGpuChunkPairs = 65536;

int run_interact(const InteractOptions& o) {
  if (o.strand != "forward" && o.strand != "both")
    throw UsageError(fmt::format("--strand must be forward or both, not '{}'", o.strand));
  const bool both = o.strand == "both";
  if (both && !o.pairs.empty())
    throw UsageError("--strand both screens QUERIES.fa against TARGETS.fa (a --pairs file names its strands itself)");
  if (o.format == "h5") {
    if (!o.pairs.empty() || o.inputs.size() != 2)
      throw UsageError("--format h5 screens QUERIES.fa against TARGETS.fa (a --pairs file has no such layout)");
    if (o.method != "auto") throw UsageError("--format h5 runs the engine's own method: leave --method auto");
    SingleStageJob j;
    j.command = "interact";
    j.stage_yaml = fmt::format(
        "  bpmax:\n    query_window: {}\n    target_window: {}\n    pairs: {}\n    traceback: {}\n    report_threshold: 0\n",
        o.query_window, o.target_window, pairs_yaml(parse_pair_weights(o.weights, 3, 2, 1)), o.traceback ? "all" : "none");
    j.queries = o.inputs[0];
    j.targets = o.inputs[1];
    j.both_strands = both;
    j.device = o.device;
    j.threads = o.threads;
    j.out = o.out;
    j.command_line =
        "screen interact " + o.inputs[0] + " " + o.inputs[1] + " --format h5" + (both ? " --strand both" : "");
    write_single_stage_h5(j);
    return 0;
  }
  if (o.format != "tsv") throw UsageError(fmt::format("--format must be tsv or h5, not '{}'", o.format));
  if (o.device != "cpu" && o.device != "gpu" && o.device != "auto")
    throw UsageError(fmt::format("--device must be cpu, gpu or auto, not '{}'", o.device));
  if (o.device == "gpu" && !bpmax::gpu_available())
    throw ResourceError("`screen interact --device gpu`: " + gpu::no_gpu_reason() + " (use --device cpu or auto)");
  const bool gpu = o.device == "gpu" || (o.device == "auto" && bpmax::gpu_available());
  if (o.device == "auto" && !gpu) warn_unusable_gpus("screen interact");
  if (gpu && o.method != "auto")
    throw UsageError("--method chooses the CPU method; it cannot be combined with the GPU (use --device cpu)");
  namespace rules = manifest::rules;  // the manifest's stages.bpmax ranges
  rules::require_option("--threads", rules::cpu_threads(o.threads));
  rules::require_option("--query-window", rules::bpmax_window(o.query_window));
  rules::require_option("--target-window", rules::bpmax_window(o.target_window));
  const bool with_pairs = !o.pairs.empty();
  if (with_pairs && !o.inputs.empty())
    throw UsageError("give either QUERIES.fa TARGETS.fa or --pairs PAIRS.fa, not both");
  if (!with_pairs && o.inputs.size() != 2)
    throw UsageError("expected QUERIES.fa TARGETS.fa (or --pairs PAIRS.fa)");

  bpmax::Params p;
  p.weights = parse_pair_weights(o.weights, 3, 2, 1);
  p.query_window = o.query_window;
  p.target_window = o.target_window;
  const bpmax::Method method = bpmax::parse_method(o.method);
  const bpmax::TracebackMode tb = o.traceback ? bpmax::TracebackMode::all() : bpmax::TracebackMode::none();

  // The pairs to score, in output order.
  std::unique_ptr<bpmax::PairSets> pair_sets;
  std::unique_ptr<seq::SequenceSet> queries_own, targets_own, targets_rc;
  const seq::SequenceSet* queries = nullptr;
  const seq::SequenceSet* targets = nullptr;
  std::vector<bpmax::PairInput> pairs;
  auto strand = [](const seq::SequenceSet& s, std::size_t k) {
    return bpmax::Strand{s.codes(k), static_cast<int>(s.length(k))};
  };
  if (with_pairs) {
    pair_sets = std::make_unique<bpmax::PairSets>(bpmax::read_pairs(o.pairs));
    queries = &pair_sets->queries;
    targets = &pair_sets->targets;
    for (std::size_t k = 0; k < pair_sets->size(); ++k)
      pairs.push_back({strand(*queries, k), strand(*targets, k), k, k});
  } else {
    queries_own = std::make_unique<seq::SequenceSet>(seq::read_fasta(o.inputs[0]));
    targets_own = std::make_unique<seq::SequenceSet>(seq::read_fasta(o.inputs[1]));
    for (const auto* set : {queries_own.get(), targets_own.get()})
      for (const auto& skipped : set->skipped())
        spdlog::warn("{}: record '{}' skipped: {}", set->source_path(), skipped.name, skipped.reason);
    queries = queries_own.get();
    targets = targets_own.get();
    // --strand both: per query, every target, then every target's reverse complement (pairs whose
    // target_index is nt + t; reported at forward positions with strand '-').
    if (both) targets_rc = std::make_unique<seq::SequenceSet>(seq::reverse_complements(*targets));
    const std::size_t nt = targets->size();
    for (std::size_t q = 0; q < queries->size(); ++q) {
      for (std::size_t t = 0; t < nt; ++t) pairs.push_back({strand(*queries, q), strand(*targets, t), q, t});
      if (both)
        for (std::size_t t = 0; t < nt; ++t) pairs.push_back({strand(*queries, q), strand(*targets_rc, t), q, nt + t});
    }
  }
  const std::size_t nt_forward = targets->size();
  const auto target_name = [&](std::size_t t) -> const std::string& {
    return targets->record(t < nt_forward ? t : t - nt_forward).name;
  };
  std::size_t largest = 0;
  for (const auto& pr : pairs) {
    const std::size_t bytes = bpmax::cpu_table_bytes(pr.query.length, pr.target.length, p);
    largest = std::max(largest, bytes);
    // Refused before any table is allocated (the GPU path falls back to these CPU tables too).
    require_memory(fmt::format("pair '{}' ({} nt) x '{}' ({} nt)", queries->record(pr.query_index).name,
                               pr.query.length, target_name(pr.target_index), pr.target.length),
                   bytes);
  }
  if (gpu)
    spdlog::info("interact: {} pairs on GPU 0 (windows {}/{}, largest table {:.1f} MB)", pairs.size(), o.query_window,
                 o.target_window, static_cast<double>(largest) / 1e6);
  else
    spdlog::info("interact: {} pairs on the CPU (method {}, windows {}/{}, largest table {:.1f} MB)", pairs.size(),
                 bpmax::method_name(method), o.query_window, o.target_window, static_cast<double>(largest) / 1e6);
  const double chunk_updates = gpu ? kGpuChunkUpdates : kChunkUpdates;
  const std::size_t chunk_pairs = gpu ? kGpuChunkPairs : kChunkPairs;
  bpmax::GpuOptions gpu_options;
  gpu_options.cpu_threads = o.threads;

  OutputFile out(o.out);
  out.write(fmt::format("query\ttarget\t{}score\tsite_start\tsite_end{}\n", both ? "strand\t" : "",
                        o.traceback ? "\tstructure" : ""));
  Progress progress("interact", "pairs", pairs.size());
  std::size_t done = 0;
  while (done < pairs.size()) {
    std::size_t last = done;
    double work = 0;
    while (last < pairs.size() && last - done < chunk_pairs && (last == done || work < chunk_updates)) {
      work += bpmax::term1_updates(pairs[last].query.length, pairs[last].target.length, p);
      ++last;
    }
    const std::vector<bpmax::PairInput> chunk(pairs.begin() + static_cast<std::ptrdiff_t>(done),
                                              pairs.begin() + static_cast<std::ptrdiff_t>(last));
    const std::vector<bpmax::PairResult> results =
        gpu ? bpmax::interact_pairs_gpu(chunk, p, tb, gpu_options) : bpmax::interact_pairs(chunk, p, tb, method, o.threads);
    std::string text;
    for (const bpmax::PairResult& r : results) {
      const bool reverse = r.target_index >= nt_forward;
      int begin = r.site.target_begin, end = r.site.target_end;
      if (reverse && end >= begin) {  // forward positions (an empty site stays 1..0)
        const int l1 = static_cast<int>(targets->length(r.target_index - nt_forward)) + 1;
        begin = l1 - r.site.target_end;
        end = l1 - r.site.target_begin;
      }
      text += fmt::format("{}\t{}\t{}{}\t{}\t{}", queries->record(r.query_index).name, target_name(r.target_index),
                          both ? (reverse ? "-\t" : "+\t") : "", format_score(r.site.score, p.weights.scale), begin, end);
      if (o.traceback) text += "\t" + (r.site.structure ? r.site.structure->dot_bracket : std::string());
      text += "\n";
    }
    out.write(text);
    done = last;
    progress.update(done);
  }
  out.commit();
  spdlog::info("interact: {} pairs in {}", pairs.size(), human_duration(progress.seconds()));
  return 0;
}

}  // namespace

void add_interact(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "interact", "Score RNA-RNA interactions with BPMax on FASTA input; TSV query, target, score, site_start, site_end");
  auto o = std::make_shared<InteractOptions>();
  cmd->add_option("fasta", o->inputs, "QUERIES.fa TARGETS.fa: every query with every target (plain or gzip)");
  cmd->add_option("--pairs", o->pairs, "One record per pair whose sequence is QUERY&TARGET (the original BPMax input)");
  cmd->add_option("--weights", o->weights, "Pair weights, multiples of 0.5, e.g. CG=3,AU=2,GU=1 (the default)");
  cmd->add_option("--query-window", o->query_window, "Longest query interval of a site (0: the whole query)")
      ->capture_default_str();
  cmd->add_option("--target-window", o->target_window, "Longest target interval of a site (0: the whole target)")
      ->capture_default_str();
  cmd->add_flag("--traceback", o->traceback, "Add the site's joint dot-bracket structure (query&target)");
  cmd->add_option("--device", o->device, "cpu, gpu (GPU 0), or auto (the GPU when there is one)")->capture_default_str();
  cmd->add_option("--method", o->method, "CPU method: auto, reference, cpu")->capture_default_str();
  cmd->add_option("--threads", o->threads, "CPU threads (0: all cores)")->capture_default_str();
  cmd->add_option("--format", o->format, "tsv, or h5 (the results file `screen run` writes; needs --out)")->capture_default_str();
  cmd->add_option("--strand", o->strand,
                  "forward (the targets as written) or both (also their reverse complements: a strand column, "
                  "site positions on the forward strand, structures as scanned)")
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Output file (default: standard output)");
  cmd->callback([&action, o] { action = [o]() -> int { return run_interact(*o); }; });
}

}  // namespace screen::cli
