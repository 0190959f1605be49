// `screen export OUTPUT --stage nussinov|miranda|miranda_pairs|bpmax|all [--format tsv|csv|bed|miranda]
// [--columns LIST] [--out FILE]`: the tables of <OUTPUT>/results.h5 (or a results file given
// directly) as TSV, CSV or BED6 (sites: miRanda hits and BPMax sites), or for miRanda as the '>' and
// '>>' lines miRanda 3.3a prints (lib/stages/miranda/miranda_format.hpp). A file name ending in ".gz"
// is written compressed; `--stage all` writes every table of the job into a folder (TSV, CSV), or
// every site into one BED.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "apps/screen/cli.hpp"
#include "apps/screen/export_table.hpp"
#include "common/error.hpp"
#include "common/output_file.hpp"
#include "common/gumbel.hpp"
#include "common/pair_weights.hpp"
#include "stages/miranda/miranda_format.hpp"
#include "store/results_reader.hpp"

namespace screen::cli {

namespace {

struct ExportArgs {
  std::string output;
  std::string stage;
  std::string format = "tsv";
  std::string columns;
  std::string out;
  bool gzip = false;  // --stage all into a folder: <table>.tsv.gz
  bool significance = false;  // pvalue and zscore columns (miranda, bpmax; docs/significance.md)
};

// A table's rows, handed to a TableWriter made with its header.
using MakeWriter = std::function<TableWriter(std::vector<std::string> header)>;

// Per query, the Gumbel fit of its scores over all targets (docs/significance.md): a score's p-value
// and z-score. miRanda: each target's best hit score, the targets without a hit censored below the
// score threshold, z from the fitted distribution's mean and spread; BPMax: every pair's score, z
// from their mean and standard deviation.
class Significance {
 public:
  void fit(std::uint64_t query, const std::vector<double>& observed, std::size_t censored, double threshold,
           bool sample_moments) {
    Fit& f = fits_[query];
    f.gumbel = stats::fit_gumbel(observed, censored, threshold);
    f.mean = f.gumbel.mean();
    f.sd = f.gumbel.stddev();
    if (sample_moments && observed.size() > 1) {
      double m = 0, q = 0;
      for (const double v : observed) m += v;
      m /= static_cast<double>(observed.size());
      for (const double v : observed) q += (v - m) * (v - m);
      f.mean = m;
      f.sd = std::sqrt(q / static_cast<double>(observed.size() - 1));
    }
  }
  // The two cells of a score of `query`: "NA" where no fit exists.
  std::array<std::string, 2> cells(std::uint64_t query, double score) const {
    const auto it = fits_.find(query);
    if (it == fits_.end() || !it->second.gumbel.ok || !(it->second.sd > 0)) return {"NA", "NA"};
    const Fit& f = it->second;
    return {fmt::format("{:.4g}", stats::gumbel_pvalue(f.gumbel, score)), fmt::format("{:.3f}", (score - f.mean) / f.sd)};
  }

 private:
  struct Fit {
    stats::GumbelFit gumbel;
    double mean = 0, sd = 0;
  };
  std::map<std::uint64_t, Fit> fits_;
};

Significance miranda_significance(const store::ResultsReader& rd, const std::vector<store::MirandaHitRow>& hits) {
  const double threshold = rd.stage_group(store::StageKind::miranda).get_double("score_threshold");
  const std::size_t n_targets = rd.targets().size();
  std::map<std::uint64_t, std::map<std::uint64_t, double>> best;  // query -> target -> best score
  for (const auto& h : hits) {
    double& b = best[h.query][h.target];
    b = std::max(b, static_cast<double>(h.score));
  }
  Significance s;
  for (const auto& [q, per_target] : best) {
    std::vector<double> observed;
    for (const auto& [t, score] : per_target) observed.push_back(score);
    s.fit(q, observed, n_targets - observed.size(), threshold, false);
  }
  return s;
}

Significance bpmax_significance(const std::vector<store::BpmaxScoreRow>& rows, int scale) {
  std::map<std::uint64_t, std::vector<double>> by_query;
  for (const auto& r : rows) by_query[r.query].push_back(static_cast<double>(r.score) / scale);
  Significance s;
  for (const auto& [q, scores] : by_query) s.fit(q, scores, 0, 0, true);
  return s;
}


void export_nussinov(const store::ResultsReader& rd, const MakeWriter& make, bool /*significance: none*/) {
  const int scale = static_cast<int>(rd.stage_group(store::StageKind::nussinov).get_int("score_scale"));
  TableWriter w = make({"side", "set", "name", "length", "score", "structure"});
  for (const store::Side side : {store::Side::query, store::Side::target}) {
    const auto seqs = side == store::Side::query ? rd.queries() : rd.targets();
    for (const auto& r : rd.nussinov(side)) {
      const auto& s = seqs.at(r.sequence);
      w.row({side == store::Side::query ? "query" : "target", s.set, s.name, std::to_string(s.length),
             format_score(r.score, scale), r.structure});
    }
  }
}

// Whether the job scanned both strands of some target set (targets[].strand: both): then the pair
// stages' tables get a strand column ('+' or '-') after target, and positions are on the forward strand.
bool both_strands(const store::ResultsReader& rd, store::StageKind stage) {
  const store::h5::Group g = rd.stage_group(stage);
  return g.has_attribute("strands") && g.get_string("strands") == "both";
}

const char* strand_cell(std::uint8_t strand) { return strand == 0 ? "+" : "-"; }

bool miranda_has_energy(const store::ResultsReader& rd) {
  // Whether the run computed energies (stages.miranda.energy): then the '>>' lines and the TSV carry them.
  const store::h5::Group params = rd.stage_group(store::StageKind::miranda);
  return params.has_attribute("energy") && params.get_bool("energy");
}

void export_miranda(const store::ResultsReader& rd, const MakeWriter& make, bool significance) {
  const auto queries = rd.queries();
  const auto targets = rd.targets();
  const bool with_energy = miranda_has_energy(rd);
  const bool with_strand = both_strands(rd, store::StageKind::miranda);
  const auto hits = rd.miranda_hits();
  const Significance sig = significance ? miranda_significance(rd, hits) : Significance{};
  // The cells of the rows `screen align` writes (one formatting for both).
  std::vector<std::string> header = split_tabs(miranda::format_tsv_header(with_energy, with_strand));
  if (significance) header.insert(header.end(), {"pvalue", "zscore"});
  TableWriter w = make(std::move(header));
  for (const auto& r : hits) {
    std::vector<std::string> cells =
        split_tabs(miranda::format_tsv_row(hit_from_row(r, with_energy), queries.at(r.query).name,
                                           targets.at(r.target).name, with_strand ? strand_cell(r.strand)[0] : 0));
    if (significance) {
      const auto pz = sig.cells(r.query, r.score);
      cells.insert(cells.end(), pz.begin(), pz.end());
    }
    w.row(cells);
  }
}

void export_miranda_pairs(const store::ResultsReader& rd, const MakeWriter& make, bool /*significance: none*/) {
  const auto queries = rd.queries();
  const auto targets = rd.targets();
  const bool with_strand = both_strands(rd, store::StageKind::miranda);
  std::vector<std::string> header = {"query", "target", "total_score", "max_score", "hit_count", "truncated"};
  if (with_strand) header.insert(header.begin() + 2, "strand");
  TableWriter w = make(std::move(header));
  for (const auto& r : rd.miranda_pairs()) {
    std::vector<std::string> cells = {queries.at(r.query).name, targets.at(r.target).name, std::to_string(r.total_score),
                                      std::to_string(r.max_score), std::to_string(r.hit_count),
                                      std::to_string(r.truncated)};
    if (with_strand) cells.insert(cells.begin() + 2, strand_cell(r.strand));
    w.row(cells);
  }
}

void export_miranda_text(const store::ResultsReader& rd, OutputFile& out) {
  const auto queries = rd.queries();
  const auto targets = rd.targets();
  const auto hits = rd.miranda_hits();
  const bool with_energy = miranda_has_energy(rd);
  const bool with_strand = both_strands(rd, store::StageKind::miranda);
  // Rows are sorted by pair and strand, then target position; miRanda reports a pair's hits in rank
  // order. A reverse-strand pair is printed as miRanda prints a scan of the reverse complement,
  // named NAME(-), with positions on it.
  std::size_t i = 0;
  while (i < hits.size()) {
    std::size_t e = i;
    while (e < hits.size() && hits[e].query == hits[i].query && hits[e].target == hits[i].target &&
           hits[e].strand == hits[i].strand)
      ++e;
    std::vector<store::MirandaHitRow> pair(hits.begin() + static_cast<std::ptrdiff_t>(i),
                                           hits.begin() + static_cast<std::ptrdiff_t>(e));
    std::sort(pair.begin(), pair.end(), [](const auto& a, const auto& b) { return a.rank < b.rank; });
    std::vector<miranda::Hit> h;
    std::vector<double> energies;
    const auto& q = queries.at(hits[i].query);
    const auto& t = targets.at(hits[i].target);
    const bool reverse = hits[i].strand == 1;
    for (const auto& r : pair) {
      h.push_back(hit_from_row(r, with_energy));
      if (reverse) h.back() = miranda::flip_target_positions(h.back(), t.length);
      energies.push_back(with_energy ? miranda::printed_energy(h.back().energy) : 0.0);
    }
    const std::string name = reverse ? t.name + "(-)" : t.name;
    for (std::size_t k = 0; k < h.size(); ++k) out.write(miranda::format_hit_line(h[k], q.name, name, energies[k]));
    // The pair counter of a run that examined every (query, target) pair in order (with both
    // strands: per query every target, then every target's reverse complement).
    const std::uint64_t nt = targets.size();
    const long counter = static_cast<long>(with_strand ? hits[i].query * 2 * nt + hits[i].strand * nt + hits[i].target + 1
                                                       : hits[i].query * nt + hits[i].target + 1);
    out.write(miranda::format_pair_line(h, q.name, name, counter, q.length, t.length, with_energy ? &energies : nullptr));
    i = e;
  }
}

void export_bpmax(const store::ResultsReader& rd, const MakeWriter& make, bool significance) {
  const int scale = static_cast<int>(rd.stage_group(store::StageKind::bpmax).get_int("score_scale"));
  const auto queries = rd.queries();
  const auto targets = rd.targets();
  const auto structures = rd.bpmax_structures();
  const auto scores = rd.bpmax_scores();
  const Significance sig = significance ? bpmax_significance(scores, scale) : Significance{};
  const bool with_strand = both_strands(rd, store::StageKind::bpmax);
  std::vector<std::string> header = {"query", "target", "score", "query_begin", "query_end", "target_begin",
                                     "target_end", "structure", "inter"};
  if (with_strand) header.insert(header.begin() + 2, "strand");
  if (significance) header.insert(header.end(), {"pvalue", "zscore"});
  TableWriter w = make(std::move(header));
  std::size_t k = 0;
  const auto key = [](const auto& r) { return std::make_tuple(r.query, r.target, r.strand); };
  for (const auto& r : scores) {
    while (k < structures.size() && key(structures[k]) < key(r)) ++k;
    const bool has = k < structures.size() && key(structures[k]) == key(r);
    std::vector<std::string> cells = {queries.at(r.query).name, targets.at(r.target).name, format_score(r.score, scale),
                                      std::to_string(r.query_begin), std::to_string(r.query_end),
                                      std::to_string(r.target_begin), std::to_string(r.target_end),
                                      has ? structures[k].structure : "", has ? structures[k].inter : ""};
    if (with_strand) cells.insert(cells.begin() + 2, strand_cell(r.strand));
    if (significance) {
      const auto pz = sig.cells(r.query, static_cast<double>(r.score) / scale);
      cells.insert(cells.end(), pz.begin(), pz.end());
    }
    w.row(cells);
  }
}

// BED6 of the sites: target, start (0-based), end (exclusive), query, score, strand ('-' for a site
// on the target's reverse complement; its interval is on the forward strand). miRanda hits
// span their target interval as miRanda prints it; BPMax sites their target interval (pairs without
// a site, score 0, are left out).
void bed_miranda(const store::ResultsReader& rd, TableWriter& w) {
  const auto queries = rd.queries();
  const auto targets = rd.targets();
  for (const auto& r : rd.miranda_hits())
    w.row({targets.at(r.target).name, std::to_string(r.rstart - 1), std::to_string(r.rend), queries.at(r.query).name,
           std::to_string(r.score), strand_cell(r.strand)});
}

void bed_bpmax(const store::ResultsReader& rd, TableWriter& w) {
  const int scale = static_cast<int>(rd.stage_group(store::StageKind::bpmax).get_int("score_scale"));
  const auto queries = rd.queries();
  const auto targets = rd.targets();
  for (const auto& r : rd.bpmax_scores()) {
    if (r.score <= 0 || r.target_begin < 1) continue;
    w.row({targets.at(r.target).name, std::to_string(r.target_begin - 1), std::to_string(r.target_end),
           queries.at(r.query).name, format_score(r.score, scale), strand_cell(r.strand)});
  }
}

struct Table {
  const char* name;
  store::StageKind stage;
  void (*write)(const store::ResultsReader&, const MakeWriter&, bool significance);
};
constexpr Table kTables[] = {
    {"nussinov", store::StageKind::nussinov, export_nussinov},
    {"miranda", store::StageKind::miranda, export_miranda},
    {"miranda_pairs", store::StageKind::miranda, export_miranda_pairs},
    {"bpmax", store::StageKind::bpmax, export_bpmax},
};

int run_export(const ExportArgs& a) {
  const bool all = a.stage == "all";
  const Table* table = nullptr;
  for (const Table& t : kTables)
    if (a.stage == t.name) table = &t;
  if (!all && table == nullptr)
    throw UsageError(fmt::format("--stage must be nussinov, miranda, miranda_pairs, bpmax or all, not '{}'", a.stage));
  if (a.format == "miranda") {
    if (a.stage != "miranda") throw UsageError("--format miranda is for --stage miranda");
    if (!a.columns.empty()) throw UsageError("--columns does not apply to --format miranda");
  }
  const ExportFormat format = a.format == "miranda" ? ExportFormat::tsv : parse_export_format(a.format);
  if (a.significance && (format == ExportFormat::bed || a.format == "miranda"))
    throw UsageError("--significance adds columns to the tsv and csv tables (miranda, bpmax)");
  if (a.significance && !all && a.stage != "miranda" && a.stage != "bpmax")
    throw UsageError("--significance is for --stage miranda, bpmax or all (scores per query and target)");
  if (a.gzip && !all) throw UsageError("--gzip is for --stage all (a file name ending in .gz compresses one table)");
  if (format == ExportFormat::bed && !all && a.stage != "miranda" && a.stage != "bpmax")
    throw UsageError("--format bed holds sites: --stage miranda, bpmax or all");
  const std::string path = results_file_of(a.output);
  const store::ResultsReader rd(path);
  if (!all && !rd.has_stage(table->stage))
    throw UsageError(fmt::format("{}: the job did not run the {} stage", path, a.stage));

  if (format == ExportFormat::bed) {
    // Sites of the chosen stage, or of every site stage the job ran.
    OutputFile out(a.out);
    TableWriter w(out, format, {}, a.columns, "sites");
    if ((all || a.stage == "miranda") && rd.has_stage(store::StageKind::miranda)) bed_miranda(rd, w);
    if ((all || a.stage == "bpmax") && rd.has_stage(store::StageKind::bpmax)) bed_bpmax(rd, w);
    out.commit();
    return 0;
  }
  if (!all) {
    OutputFile out(a.out);
    if (a.format == "miranda") {
      export_miranda_text(rd, out);
    } else {
      table->write(
          rd, [&](std::vector<std::string> header) { return TableWriter(out, format, std::move(header), a.columns, table->name); },
          a.significance);
    }
    out.commit();
    return 0;
  }
  // Every table of the job into a folder: <table>.<tsv|csv>[.gz].
  if (a.out.empty() || a.out == "-") throw UsageError("--stage all writes one file per table: --out names a folder");
  if (!a.columns.empty()) throw UsageError("--columns is for one table (the tables have different columns)");
  std::error_code ec;
  std::filesystem::create_directories(a.out, ec);
  if (ec) throw ResourceError(fmt::format("{}: cannot create the folder: {}", a.out, ec.message()));
  for (const Table& t : kTables) {
    if (!rd.has_stage(t.stage)) continue;
    OutputFile out(fmt::format("{}/{}.{}{}", a.out, t.name, export_extension(format), a.gzip ? ".gz" : ""));
    t.write(
        rd, [&](std::vector<std::string> header) { return TableWriter(out, format, std::move(header), "", t.name); },
        a.significance);
    out.commit();
  }
  return 0;
}

}  // namespace

void add_export(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("export", "Export a job's results as TSV, CSV, BED or miRanda text");
  auto a = std::make_shared<ExportArgs>();
  cmd->add_option("output", a->output, "The job's output folder (or a results.h5)")->required();
  cmd->add_option("--stage", a->stage,
                  "nussinov, miranda (hits), miranda_pairs (per-pair summaries), bpmax, or all (every table into "
                  "the --out folder; with --format bed, every site)")
      ->required();
  cmd->add_option("--format", a->format,
                  "tsv (default), csv, bed (BED6 of the sites: miranda, bpmax or all) or miranda (miRanda's '>' and "
                  "'>>' lines, --stage miranda)");
  cmd->add_option("--columns", a->columns, "The columns to write, comma-separated, in this order (tsv, csv; one table)");
  cmd->add_option("--out", a->out,
                  "Output file (default: standard output; a name ending in .gz is compressed); a folder for --stage all");
  cmd->add_flag("--gzip", a->gzip, "--stage all: compress the files (<table>.tsv.gz)");
  cmd->add_flag("--significance", a->significance,
                "Add pvalue and zscore columns (miranda, bpmax): a Gumbel fit per query over all targets "
                "(docs/significance.md)");
  cmd->callback([&action, a] { action = [a]() -> int { return run_export(*a); }; });
}

}  // namespace screen::cli
