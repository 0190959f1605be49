// `screen export OUTPUT --stage nussinov|miranda|bpmax [--format tsv|miranda] [--out FILE]`: rows of
// one stage of <OUTPUT>/results.h5 (or a results file given directly) as TSV, or for miRanda as the
// '>' and '>>' lines miRanda 3.3a prints (lib/stages/miranda/miranda_format.hpp).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "apps/screen/cli.hpp"
#include "common/error.hpp"
#include "common/output_file.hpp"
#include "common/pair_weights.hpp"
#include "stages/miranda/miranda_format.hpp"
#include "store/results_reader.hpp"

namespace screen::cli {

namespace {

struct ExportArgs {
  std::string output;
  std::string stage;
  std::string format = "tsv";
  std::string out;
};

miranda::Hit to_hit(const store::MirandaHitRow& r, bool with_energy) {
  miranda::Hit h;
  h.has_energy = with_energy;
  h.energy = static_cast<int>(std::lround(r.energy * 100.0));  // stored as kcal/mol of a 0.01 grid
  h.query_index = r.query;
  h.target_index = r.target;
  h.score = r.score;
  h.qstart = r.qstart;
  h.qend = r.qend;
  h.rstart = r.rstart;
  h.rend = r.rend;
  h.align_len = r.align_len;
  h.identity = r.identity;
  h.similarity = r.similarity;
  h.query_line = r.query_aln;
  h.match_line = r.match_aln;
  h.target_line = r.target_aln;
  return h;
}

void export_nussinov(const store::ResultsReader& rd, OutputFile& out) {
  const int scale = static_cast<int>(rd.stage_group(store::StageKind::nussinov).get_int("score_scale"));
  out.write("side\tset\tname\tlength\tscore\tstructure\n");
  for (const store::Side side : {store::Side::query, store::Side::target}) {
    const auto seqs = side == store::Side::query ? rd.queries() : rd.targets();
    for (const auto& r : rd.nussinov(side)) {
      const auto& s = seqs.at(r.sequence);
      out.write(fmt::format("{}\t{}\t{}\t{}\t{}\t{}\n", side == store::Side::query ? "query" : "target", s.set, s.name,
                            s.length, format_score(r.score, scale), r.structure));
    }
  }
}

void export_miranda(const store::ResultsReader& rd, OutputFile& out, bool miranda_format) {
  const auto queries = rd.queries();
  const auto targets = rd.targets();
  const auto hits = rd.miranda_hits();
  // Whether the run computed energies (stages.miranda.energy): then the '>>' lines and the TSV carry them.
  const store::h5::Group params = rd.stage_group(store::StageKind::miranda);
  const bool with_energy = params.has_attribute("energy") && params.get_bool("energy");
  if (!miranda_format) {
    out.write(miranda::format_tsv_header(with_energy));
    for (const auto& r : hits)
      out.write(miranda::format_tsv_row(to_hit(r, with_energy), queries.at(r.query).name, targets.at(r.target).name));
    return;
  }
  // Rows are sorted by pair, then target position; miRanda reports a pair's hits in rank order.
  std::size_t i = 0;
  while (i < hits.size()) {
    std::size_t e = i;
    while (e < hits.size() && hits[e].query == hits[i].query && hits[e].target == hits[i].target) ++e;
    std::vector<store::MirandaHitRow> pair(hits.begin() + static_cast<std::ptrdiff_t>(i),
                                           hits.begin() + static_cast<std::ptrdiff_t>(e));
    std::sort(pair.begin(), pair.end(), [](const auto& a, const auto& b) { return a.rank < b.rank; });
    std::vector<miranda::Hit> h;
    std::vector<double> energies;
    for (const auto& r : pair) {
      h.push_back(to_hit(r, with_energy));
      energies.push_back(with_energy ? miranda::printed_energy(h.back().energy) : 0.0);
    }
    const auto& q = queries.at(hits[i].query);
    const auto& t = targets.at(hits[i].target);
    for (std::size_t k = 0; k < h.size(); ++k) out.write(miranda::format_hit_line(h[k], q.name, t.name, energies[k]));
    // The pair counter of a run that examined every (query, target) pair in order.
    const long counter = static_cast<long>(hits[i].query * targets.size() + hits[i].target + 1);
    out.write(miranda::format_pair_line(h, q.name, t.name, counter, q.length, t.length, with_energy ? &energies : nullptr));
    i = e;
  }
}

void export_bpmax(const store::ResultsReader& rd, OutputFile& out) {
  const int scale = static_cast<int>(rd.stage_group(store::StageKind::bpmax).get_int("score_scale"));
  const auto queries = rd.queries();
  const auto targets = rd.targets();
  const auto structures = rd.bpmax_structures();
  out.write("query\ttarget\tscore\tquery_begin\tquery_end\ttarget_begin\ttarget_end\tstructure\tinter\n");
  std::size_t k = 0;
  for (const auto& r : rd.bpmax_scores()) {
    while (k < structures.size() && std::make_pair(structures[k].query, structures[k].target) <
                                        std::make_pair(r.query, r.target))
      ++k;
    const bool has = k < structures.size() && structures[k].query == r.query && structures[k].target == r.target;
    out.write(fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n", queries.at(r.query).name, targets.at(r.target).name,
                          format_score(r.score, scale), r.query_begin, r.query_end, r.target_begin, r.target_end,
                          has ? structures[k].structure : "", has ? structures[k].inter : ""));
  }
}

// The results file `output` names: the file itself, or a job folder's results.h5. InputError (exit 4)
// for a path that does not exist or a folder that holds no results: one line saying which.
std::string results_file(const std::string& output) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(output, ec)) throw InputError(fmt::format("{}: no such file or folder", output));
  if (!fs::is_directory(output, ec)) return output;
  const std::string path = output + "/results.h5";
  if (fs::exists(path, ec)) return path;
  if (fs::exists(output + "/run.info", ec))
    throw InputError(fmt::format("{}: the job's results are not merged yet (no results.h5); `screen status {}` "
                                 "shows its progress, `screen merge {}` merges finished shards",
                                 output, output, output));
  throw InputError(fmt::format("{}: not a job's output folder (no results.h5 and no run.info)", output));
}

int run_export(const ExportArgs& a) {
  if (a.format != "tsv" && a.format != "miranda")
    throw UsageError(fmt::format("--format must be tsv or miranda, not '{}'", a.format));
  if (a.format == "miranda" && a.stage != "miranda") throw UsageError("--format miranda is for --stage miranda");
  const std::string path = results_file(a.output);
  const store::ResultsReader rd(path);
  store::StageKind kind;
  if (a.stage == "nussinov")
    kind = store::StageKind::nussinov;
  else if (a.stage == "miranda")
    kind = store::StageKind::miranda;
  else if (a.stage == "bpmax")
    kind = store::StageKind::bpmax;
  else
    throw UsageError(fmt::format("--stage must be nussinov, miranda or bpmax, not '{}'", a.stage));
  if (!rd.has_stage(kind)) throw UsageError(fmt::format("{}: the job did not run the {} stage", path, a.stage));
  OutputFile out(a.out);
  if (kind == store::StageKind::nussinov) export_nussinov(rd, out);
  if (kind == store::StageKind::miranda) export_miranda(rd, out, a.format == "miranda");
  if (kind == store::StageKind::bpmax) export_bpmax(rd, out);
  out.commit();
  return 0;
}

}  // namespace

void add_export(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("export", "Export a job's results as TSV or miRanda text");
  auto a = std::make_shared<ExportArgs>();
  cmd->add_option("output", a->output, "The job's output folder (or a results.h5)")->required();
  cmd->add_option("--stage", a->stage, "nussinov, miranda or bpmax")->required();
  cmd->add_option("--format", a->format, "tsv (default) or miranda (--stage miranda)");
  cmd->add_option("--out", a->out, "Output file (default: standard output)");
  cmd->callback([&action, a] { action = [a]() -> int { return run_export(*a); }; });
}

}  // namespace screen::cli
