// `screen align QUERIES.fa TARGETS.fa`: miRanda-style target sites of every query (microRNA) in
// every target, through miranda::align_batch, as TSV or as miRanda's own report (-quiet: alignment
// blocks, '>' hit lines and '>>' pair lines), with each hit's duplex energy as miRanda computes it
// by default (--no-energy: as `miranda -noenergy`). Queries are processed in chunks so that output
// and progress flow for large inputs.
#include <fmt/format.h>
#include <omp.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "apps/screen/async_writer.hpp"
#include "apps/screen/cli.hpp"
#include "apps/screen/h5_output.hpp"
#include "common/error.hpp"
#include "common/output_file.hpp"
#include "common/progress.hpp"
#include "seq/sequence_set.hpp"
#include "gpu/device_info.hpp"
#include "manifest/param_rules.hpp"
#include "stages/miranda/align_batch.hpp"
#include "stages/miranda/cuda.hpp"
#include "stages/miranda/display_letters.hpp"
#include "stages/miranda/miranda_format.hpp"
#include "seq/reverse_complement.hpp"

namespace screen::cli {

namespace {

struct AlignOptions {
  std::string queries;
  std::string targets;
  double score_threshold = 140.0;
  double scale = 4.0;
  double gap_open = -9.0;
  double gap_extend = -4.0;
  bool strict = false;
  bool no_energy = false;
  double energy_threshold = 1.0;
  double temperature = 30.0;
  std::string device = "auto";
  std::string method = "auto";
  int threads = 0;
  std::string format = "tsv";
  std::string strand = "forward";
  std::string out;
};

// Cells (query length x target length) per align_batch call: output is written after each chunk. The
// CPU path splits a call's targets into blocks for its threads, so one query per call keeps them busy;
// a GPU call uploads the whole target stream and sets up its scanner, so it takes many queries at
// once (about 350 microRNAs against a 131-Mnt transcriptome; their TSV rows, some hundred MB, wait
// until the chunk ends).
constexpr double kChunkCellsCpu = 4e9;
constexpr double kChunkCellsGpu = 1e12;
constexpr std::size_t kChunkQueries = 512;



seq::SequenceSet read_input(const std::string& path, const char* what) {
  seq::FastaOptions fo;
  fo.mask_x = true;           // miRanda reads X as a masked base
  fo.skip_whitespace = true;  // and ignores white space inside a record
  seq::SequenceSet set = seq::read_fasta(path, fo);
  for (const auto& skipped : set.skipped())
    spdlog::warn("{}: {} record '{}' skipped: {}", path, what, skipped.name, skipped.reason);
  return set;
}

int run_align(const AlignOptions& o) {
  if (o.strand != "forward" && o.strand != "both")
    throw UsageError(fmt::format("--strand must be forward or both, not '{}'", o.strand));
  const bool both = o.strand == "both";
  if (o.format == "h5") {
    if (o.method != "auto") throw UsageError("--format h5 runs the engine's own method: leave --method auto");
    SingleStageJob j;
    j.command = "align";
    j.stage_yaml = fmt::format(
        "  miranda:\n    score_threshold: {}\n    scale: {}\n    gap_open: {}\n    gap_extend: {}\n    strict: {}\n"
        "    energy: {}\n    energy_threshold: {}\n    temperature: {}\n",
        o.score_threshold, o.scale, o.gap_open, o.gap_extend, o.strict, !o.no_energy, o.energy_threshold, o.temperature);
    j.queries = o.queries;
    j.targets = o.targets;
    j.both_strands = both;
    j.device = o.device;
    j.threads = o.threads;
    j.out = o.out;
    j.command_line = "screen align " + o.queries + " " + o.targets + " --format h5" + (both ? " --strand both" : "");
    write_single_stage_h5(j);
    return 0;
  }
  if (o.format != "tsv" && o.format != "miranda")
    throw UsageError(fmt::format("--format must be tsv, miranda or h5, not '{}'", o.format));
  if (o.device != "cpu" && o.device != "gpu" && o.device != "auto")
    throw UsageError(fmt::format("--device must be cpu, gpu or auto, not '{}'", o.device));
  namespace rules = manifest::rules;  // the manifest's stages.miranda ranges
  rules::require_option("--threads", rules::cpu_threads(o.threads));
  rules::require_option("--score-threshold", rules::miranda_score_threshold(o.score_threshold));
  rules::require_option("--scale", rules::miranda_scale(o.scale));
  rules::require_option("--gap-open", rules::miranda_gap_penalty(o.gap_open));
  rules::require_option("--gap-extend", rules::miranda_gap_penalty(o.gap_extend));
  rules::require_option("--energy-threshold", rules::energy_threshold(o.energy_threshold));
  rules::require_option("--temperature", rules::energy_temperature(o.temperature));
  miranda::BatchOptions batch;
  if (o.method == "auto") {
    batch.method = miranda::Method::cpu;
  } else if (o.method == "reference" || o.method == "cpu") {
    batch.method = miranda::parse_method(o.method);
  } else {
    throw UsageError(fmt::format("--method must be auto, reference or cpu, not '{}'", o.method));
  }
  // The GPU scans for candidate cells; the post-processing runs on the CPU (threads) either way.
  if (o.device == "gpu") {
    if (o.method != "auto")
      throw UsageError(fmt::format("--method {} runs on the CPU; leave --method auto with --device gpu", o.method));
    if (!miranda::gpu_available())
      throw ResourceError("`screen align --device gpu`: no usable GPU: " + gpu::no_gpu_reason());
    batch.method = miranda::Method::gpu;
  } else if (o.device == "auto" && o.method == "auto" && miranda::gpu_available()) {
    batch.method = miranda::Method::gpu;
  } else if (o.device == "auto") {
    warn_unusable_gpus("screen align");
  }
  batch.threads = o.threads;

  miranda::Params p;
  p.score_threshold = o.score_threshold;
  p.scale = o.scale;
  p.gap_open = o.gap_open;
  p.gap_extend = o.gap_extend;
  p.strict = o.strict;
  p.energy = !o.no_energy;
  p.energy_threshold = o.energy_threshold;
  p.temperature = o.temperature;

  const seq::SequenceSet queries = read_input(o.queries, "query");
  const seq::SequenceSet forward = read_input(o.targets, "target");
  // Letters as written, for the alignment lines (T or U, IUPAC letters, case).
  const std::vector<std::string> qletters = miranda::read_display_letters(o.queries, queries);
  std::vector<std::string> tletters = miranda::read_display_letters(o.targets, forward);
  // --strand both: the targets, then their reverse complements as targets nf..2nf-1 (per query,
  // every forward target, then every reverse one); their hits are reported at forward positions.
  const std::size_t nf = forward.size();
  seq::SequenceSet both_set;
  if (both) {
    both_set = forward;
    const seq::SequenceSet rc = seq::reverse_complements(forward);
    for (std::size_t t = 0; t < nf; ++t) both_set.add(rc.record(t), rc.codes(t), rc.length(t));
    if (!tletters.empty())
      for (std::size_t t = 0; t < nf; ++t) tletters.push_back(seq::reverse_complement_letters(tletters[t]));
  }
  const seq::SequenceSet& targets = both ? both_set : forward;
  if (!qletters.empty()) batch.query_letters = &qletters;
  if (!tletters.empty()) batch.target_letters = &tletters;
  // A target index of the scan: its record's name (with "(-)" for the reverse strand in miRanda's
  // report, which prints positions on the strand scanned) and strand.
  const auto is_reverse = [nf](std::size_t t) { return t >= nf; };
  const auto report_name = [&](std::size_t t) {
    return is_reverse(t) ? forward.record(t - nf).name + "(-)" : forward.record(t).name;
  };

  const std::size_t nq = queries.size(), nt = targets.size();
  const std::size_t total = nq * nt;
  const double target_bases = static_cast<double>(targets.total_length());
  spdlog::info("align: {} queries x {} targets ({} nt) = {} pairs on the {} (method {}, scan {})", nq, nt,
               targets.total_length(), total, batch.method == miranda::Method::gpu ? "GPU" : "CPU",
               miranda::method_name(batch.method),
               batch.method == miranda::Method::cpu   ? miranda::scan_isa_name(miranda::best_scan_isa())
               : batch.method == miranda::Method::gpu ? "cuda"
                                                      : "-");

  OutputFile out(o.out);
  Progress progress("align", "pairs", total);
  std::size_t hits = 0, pairs_with_hits = 0, truncated = 0;
  const auto warn_truncated = [&](const miranda::PairResult& r) {
    if (!r.truncated) return;
    ++truncated;
    spdlog::warn("align: {} x {}: more than {} hits; only the first {} are reported", queries.record(r.query_index).name,
                 report_name(r.target_index), p.max_hits_per_pair, p.max_hits_per_pair);
  };
  const double chunk_cells = batch.method == miranda::Method::gpu ? kChunkCellsGpu : kChunkCellsCpu;
  const int threads = batch.threads > 0 ? batch.threads : omp_get_max_threads();
  // The output: TSV rows are formatted on all threads as each part of a chunk arrives and written on
  // a thread of their own while the next chunk runs; miRanda's report (state from pair to pair) is
  // formatted in order after each chunk.
  AsyncWriter writer([&out](const std::string& text) { out.write(text); });
  if (o.format == "tsv") writer.push({miranda::format_tsv_header(p.energy, both)});
  std::ostringstream text;
  miranda::ReportWriter report(text, true);
  std::size_t q0 = 0;
  while (q0 < nq) {
    // The next chunk of queries.
    std::size_t q1 = q0;
    double cells = 0;
    while (q1 < nq && q1 - q0 < kChunkQueries &&
           (q1 == q0 || cells + static_cast<double>(queries.length(q1)) * target_bases <= chunk_cells)) {
      cells += static_cast<double>(queries.length(q1)) * target_bases;
      ++q1;
    }
    batch.query_begin = q0;
    batch.query_end = q1;
    const std::size_t before = q0 * nt;
    batch.progress = [&progress, before](std::size_t done) { progress.update(before + done); };
    if (o.format == "tsv") {
      // Parts come target batch by target batch, each in (query, target) order: a query's rows are
      // its parts' rows in arrival order, written query by query when the chunk ends.
      std::vector<std::vector<std::string>> rows(q1 - q0);
      miranda::align_batch_streamed(queries, targets, p, batch, [&](std::vector<miranda::PairResult>& part) {
        std::vector<std::size_t> starts;  // part indices where a query's pairs begin
        for (std::size_t k = 0; k < part.size(); ++k) {
          if (k == 0 || part[k].query_index != part[k - 1].query_index) starts.push_back(k);
          warn_truncated(part[k]);
          hits += part[k].hits.size();
          pairs_with_hits += !part[k].hits.empty();
        }
        starts.push_back(part.size());
        const long long groups = static_cast<long long>(starts.size()) - 1;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
        for (long long g = 0; g < groups; ++g) {
          std::string s;
          for (std::size_t k = starts[static_cast<std::size_t>(g)]; k < starts[static_cast<std::size_t>(g) + 1]; ++k) {
            const miranda::PairResult& r = part[k];
            const std::size_t t = r.target_index;
            for (const miranda::Hit& h : r.hits) {
              if (!both)
                s += miranda::format_tsv_row(h, queries.record(r.query_index).name, targets.record(t).name);
              else if (!is_reverse(t))
                s += miranda::format_tsv_row(h, queries.record(r.query_index).name, targets.record(t).name, '+');
              else
                s += miranda::format_tsv_row(miranda::flip_target_positions(h, targets.length(t)),
                                             queries.record(r.query_index).name, forward.record(t - nf).name, '-');
            }
          }
          rows[part[starts[static_cast<std::size_t>(g)]].query_index - q0].push_back(std::move(s));
        }
      });
      std::vector<std::string> block;
      for (auto& r : rows)
        for (auto& s : r) block.push_back(std::move(s));
      writer.push(std::move(block));
    } else {
      const std::vector<miranda::PairResult> results = miranda::align_batch(queries, targets, p, batch);
      std::size_t r = 0;
      for (std::size_t qi = q0; qi < q1; ++qi) {
        for (std::size_t ti = 0; ti < nt; ++ti) {
          static const std::vector<miranda::Hit> kNoHits;
          const bool here = r < results.size() && results[r].query_index == qi && results[r].target_index == ti;
          const miranda::PairResult* pr = here ? &results[r++] : nullptr;
          const std::vector<miranda::Hit>& pair_hits = pr ? pr->hits : kNoHits;
          if (pr) warn_truncated(*pr);
          report.pair(pair_hits, queries.record(qi).name, report_name(ti), queries.length(qi), targets.length(ti));
          hits += pair_hits.size();
          pairs_with_hits += !pair_hits.empty();
        }
      }
      writer.push({text.str()});
      text.str(std::string());
    }
    q0 = q1;
    progress.update(q0 * nt);
  }
  if (o.format == "miranda") {
    report.finish();
    writer.push({text.str()});
  }
  writer.finish();
  out.commit();
  spdlog::info("align: {} pairs in {:.2f} s: {} hits in {} pairs{}", total, progress.seconds(), hits,
               pairs_with_hits, truncated > 0 ? fmt::format(" ({} pairs truncated)", truncated) : std::string());
  return 0;
}

}  // namespace

void add_align(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "align", "Find miRanda-style target sites (miRanda 3.3a, duplex energies included) of every query in every target");
  auto o = std::make_shared<AlignOptions>();
  cmd->add_option("queries", o->queries, "Query FASTA (microRNAs; plain or gzip)")->required();
  cmd->add_option("targets", o->targets, "Target FASTA (plain or gzip)")->required();
  cmd->add_option("--score-threshold", o->score_threshold, "Report alignments scoring at least this")
      ->capture_default_str();
  cmd->add_option("--scale", o->scale, "Scale of the seed region's scores and gap costs (microRNA positions 2-8)")
      ->capture_default_str();
  cmd->add_option("--gap-open", o->gap_open, "Gap-open penalty (negative)")->capture_default_str();
  cmd->add_option("--gap-extend", o->gap_extend, "Gap-extend penalty (negative)")->capture_default_str();
  cmd->add_flag("--strict", o->strict, "Require a perfect seed: positions 2-8 matched, no gaps");
  cmd->add_flag("--no-energy", o->no_energy,
                "No duplex energies: miRanda's -noenergy (energy fields 0.00, no energy filter)");
  cmd->add_option("--energy-threshold", o->energy_threshold,
                  "Report hits whose duplex energy is below this (kcal/mol; miRanda's -en, which it reads as an "
                  "integer: -en -14.5 is --energy-threshold -14)")
      ->capture_default_str();
  cmd->add_option("--temperature", o->temperature, "Temperature of the energy model (degrees C; miRanda's is 30)")
      ->capture_default_str();
  cmd->add_option("--device", o->device, "cpu, gpu (candidate scan on the GPU, post-processing on the CPU), or auto (gpu when one is usable and --method is auto)")
      ->capture_default_str();
  cmd->add_option("--method", o->method, "CPU method: auto (cpu), reference, or cpu (SIMD scan)")
      ->capture_default_str();
  cmd->add_option("--threads", o->threads, "CPU threads (0: all cores)")->capture_default_str();
  cmd->add_option("--format", o->format,
                  "tsv, miranda (miRanda's -quiet report: alignment blocks, '>' and '>>' lines), "
                  "or h5 (the results file `screen run` writes; needs --out)")
      ->capture_default_str();
  cmd->add_option("--strand", o->strand,
                  "forward (the targets as written) or both (also their reverse complements: a strand column, "
                  "positions on the forward strand; in --format miranda the reverse strand is NAME(-) with its own "
                  "positions)")
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Output file (default: standard output)");
  cmd->callback([&action, o] { action = [o]() -> int { return run_align(*o); }; });
}

}  // namespace screen::cli
