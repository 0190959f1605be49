// `screen report OUTPUT [--out FILE] [--top N]`: one self-contained HTML page of a job's results
// (inline SVG, no script, no network): the job, its inputs and provenance; per stage the score
// distribution, hits per query, the top hits as a table, miRanda's alignments as miRanda prints them
// and BPMax's best sites drawn as duplexes (letters where the input files are still there, unchanged).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "apps/screen/cli.hpp"
#include "apps/screen/report_svg.hpp"
#include "common/error.hpp"
#include "common/output_file.hpp"
#include "common/pair_weights.hpp"
#include "seq/reverse_complement.hpp"
#include "seq/sequence_set.hpp"
#include "stages/miranda/miranda_format.hpp"
#include "stages/miranda/reference.hpp"
#include "stages/miranda/site_type.hpp"
#include "store/results_reader.hpp"
#include "store/stage_rows.hpp"

namespace screen::cli {

namespace {

struct ReportArgs {
  std::string output;
  std::string out;
  int top = 20;
};

// Each input set's letters by record (index_in_file), when its file is readable and its SHA-256
// is the one the job recorded; otherwise none (the figures then show positions only).
class Letters {
 public:
  explicit Letters(const store::ResultsInfo& info) {
    for (const auto& in : info.inputs) {
      std::error_code ec;
      if (!std::filesystem::is_regular_file(in.path, ec)) continue;
      try {
        auto set = std::make_unique<seq::SequenceSet>(seq::read_fasta(in.path));
        if (set->sha256() == in.sha256) sets_[{in.side, in.set}] = std::move(set);
      } catch (const Error&) {
        // unreadable now: positions only
      }
    }
  }
  std::string of(const std::string& side, const store::SequenceRow& r) const {
    const auto it = sets_.find({side, r.set});
    if (it == sets_.end() || r.index_in_file >= it->second->size()) return {};
    const seq::SequenceSet& s = *it->second;
    const std::size_t k = static_cast<std::size_t>(r.index_in_file);
    static const char kCode[] = "ACGUN";
    std::string out(s.length(k), 'N');
    for (std::size_t c = 0; c < out.size(); ++c) out[c] = kCode[std::min<unsigned>(s.codes(k)[c], 4u)];
    return out;
  }
  bool any() const { return !sets_.empty(); }

 private:
  std::map<std::pair<std::string, std::string>, std::unique_ptr<seq::SequenceSet>> sets_;
};

std::string table_html(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::string s = "<table><thead><tr>";
  for (const auto& h : header) s += "<th>" + html_escape(h) + "</th>";
  s += "</tr></thead><tbody>";
  for (const auto& r : rows) {
    s += "<tr>";
    for (const auto& c : r) s += "<td>" + html_escape(c) + "</td>";
    s += "</tr>";
  }
  return s + "</tbody></table>";
}

std::string shorten(const std::string& s, std::size_t n) { return s.size() > n ? s.substr(0, n - 3) + "..." : s; }

std::string job_section(const store::ResultsReader& rd, const Letters& letters) {
  const auto& i = rd.info();
  const std::string stages = fmt::format("{}", fmt::join(store::stage_names(i.stages), ", "));
  std::string s = "<section id=\"job\"><h2>The job</h2>";
  s += table_html({"", ""}, {{"job", i.job_name},
                             {"stages", stages},
                             {"queries", std::to_string(rd.queries().size())},
                             {"targets", std::to_string(rd.targets().size())},
                             {"records skipped", std::to_string(rd.skipped().size())},
                             {"created", i.created},
                             {"screen", i.screen_version + " (commit " + i.git_commit + ")"},
                             {"hosts", fmt::format("{}", fmt::join(i.hosts, ", "))},
                             {"devices", fmt::format("{}", fmt::join(i.devices, ", "))},
                             {"command", i.command_line}});
  std::vector<std::vector<std::string>> inputs;
  for (const auto& in : i.inputs) inputs.push_back({in.side, in.set, in.path, in.sha256.substr(0, 16) + "..."});
  s += "<h3>Inputs</h3>" + table_html({"side", "set", "file", "SHA-256"}, inputs);
  if (!letters.any()) s += "<p class=\"note\">The input files are not where the job read them (or changed): figures show positions, not letters.</p>";
  s += "<details><summary>The manifest as run</summary><pre>" + html_escape(i.manifest) + "</pre></details></section>";
  return s;
}

std::string nussinov_section(const store::ResultsReader& rd, int top) {
  const int scale = static_cast<int>(rd.stage_group(store::StageKind::nussinov).get_int("score_scale"));
  struct Row {
    std::string side, name;
    std::uint64_t length;
    std::int64_t score;
    std::string structure;
  };
  std::vector<Row> rows;
  std::vector<double> scores;
  for (const store::Side side : {store::Side::query, store::Side::target}) {
    const auto seqs = side == store::Side::query ? rd.queries() : rd.targets();
    for (const auto& r : rd.nussinov(side)) {
      const auto& q = seqs.at(r.sequence);
      rows.push_back({side == store::Side::query ? "query" : "target", q.name, q.length, r.score, r.structure});
      scores.push_back(static_cast<double>(r.score) / scale);
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.score > b.score; });
  std::vector<std::vector<std::string>> cells;
  for (std::size_t k = 0; k < rows.size() && k < static_cast<std::size_t>(top); ++k)
    cells.push_back({rows[k].side, rows[k].name, std::to_string(rows[k].length), format_score(rows[k].score, scale),
                     shorten(rows[k].structure, 90)});
  std::string s = "<section id=\"nussinov\"><h2>Nussinov folding</h2>";
  s += fmt::format("<p>{} sequences folded (maximum weighted base pairs).</p>", rows.size());
  s += "<div class=\"figures\">" + svg_histogram(scores, "score (weighted base pairs)", "Fold scores") + "</div>";
  s += "<h3>Highest scores</h3>" + table_html({"side", "name", "length", "score", "structure"}, cells) + "</section>";
  return s;
}

std::string miranda_section(const store::ResultsReader& rd, int top) {
  const auto queries = rd.queries();
  const auto targets = rd.targets();
  auto hits = rd.miranda_hits();
  const store::h5::Group params = rd.stage_group(store::StageKind::miranda);
  const bool with_energy = params.has_attribute("energy") && params.get_bool("energy");
  std::vector<double> scores, energies;
  std::map<std::uint64_t, double> per_query;
  std::map<std::string, double> types;
  for (const auto& h : hits) {
    scores.push_back(h.score);
    if (with_energy) energies.push_back(h.energy);
    per_query[h.query] += 1;
    types[miranda::site_type_name(miranda::site_type(h.query_aln, h.target_aln))] += 1;
  }
  std::vector<std::pair<std::string, double>> bars;
  for (const auto& [q, n] : per_query) bars.push_back({queries.at(q).name, n});
  std::stable_sort(bars.begin(), bars.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (bars.size() > static_cast<std::size_t>(top)) bars.resize(static_cast<std::size_t>(top));
  std::vector<std::pair<std::string, double>> type_bars;
  for (const char* t : {"8mer", "7mer-m8", "7mer-A1", "6mer", "offset-6mer", "none"}) type_bars.push_back({t, types[t]});
  std::stable_sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) { return a.score > b.score; });
  std::vector<std::vector<std::string>> cells;
  std::string blocks;
  for (std::size_t k = 0; k < hits.size() && k < static_cast<std::size_t>(top); ++k) {
    const auto& h = hits[k];
    const std::string target = targets.at(h.target).name + (h.strand == 1 ? " (-)" : "");
    cells.push_back({queries.at(h.query).name, target, std::to_string(h.score),
                     with_energy ? fmt::format("{:.2f}", h.energy) : "-", fmt::format("{}-{}", h.rstart, h.rend),
                     miranda::site_type_name(miranda::site_type(h.query_aln, h.target_aln))});
    if (k < 5) {
      // A reverse-strand hit as miRanda prints a scan of the reverse complement: its own positions.
      miranda::Hit mh = hit_from_row(h, with_energy);
      if (h.strand == 1) mh = miranda::flip_target_positions(mh, targets.at(h.target).length);
      const double e = miranda::printed_energy(mh.energy);  // as miRanda prints it
      blocks += fmt::format("<h4>{} x {}</h4><pre class=\"alignment\">{}</pre>", html_escape(queries.at(h.query).name),
                            html_escape(target),
                            html_escape(miranda::format_alignment_block(mh, with_energy ? &e : nullptr)));
    }
  }
  std::string s = "<section id=\"miranda\"><h2>miRanda target sites</h2>";
  s += fmt::format("<p>{} sites in {} pairs{}.</p>", hits.size(), rd.miranda_pairs().size(),
                   with_energy ? ", with duplex energies" : "");
  s += "<div class=\"figures\">" + svg_histogram(scores, "miRanda score", "Site scores");
  if (with_energy) s += svg_histogram(energies, "duplex free energy (kcal/mol)", "Duplex energies");
  s += svg_bars(bars, "sites", "Sites per query (most first)") + svg_bars(type_bars, "sites", "Site types (TargetScan)") + "</div>";
  s += "<h3>Best sites</h3>" + table_html({"query", "target", "score", "energy", "target positions", "site type"}, cells);
  s += "<h3>The best five, as miRanda prints them</h3>" + blocks + "</section>";
  return s;
}

std::string bpmax_section(const store::ResultsReader& rd, const Letters& letters, int top) {
  const int scale = static_cast<int>(rd.stage_group(store::StageKind::bpmax).get_int("score_scale"));
  const auto queries = rd.queries();
  const auto targets = rd.targets();
  auto scores = rd.bpmax_scores();
  std::vector<double> values;
  std::map<std::uint64_t, double> best;
  for (const auto& r : scores) {
    const double v = static_cast<double>(r.score) / scale;
    values.push_back(v);
    best[r.query] = std::max(best[r.query], v);
  }
  std::vector<std::pair<std::string, double>> bars;
  for (const auto& [q, v] : best) bars.push_back({queries.at(q).name, v});
  std::stable_sort(bars.begin(), bars.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (bars.size() > static_cast<std::size_t>(top)) bars.resize(static_cast<std::size_t>(top));
  std::stable_sort(scores.begin(), scores.end(), [](const auto& a, const auto& b) { return a.score > b.score; });
  std::vector<std::vector<std::string>> cells;
  for (std::size_t k = 0; k < scores.size() && k < static_cast<std::size_t>(top); ++k) {
    const auto& r = scores[k];
    cells.push_back({queries.at(r.query).name, targets.at(r.target).name + (r.strand == 1 ? " (-)" : ""),
                     format_score(r.score, scale), fmt::format("{}-{}", r.query_begin, r.query_end),
                     fmt::format("{}-{}", r.target_begin, r.target_end)});
  }
  // Duplexes of the best sites that traceback covered.
  auto structures = rd.bpmax_structures();
  std::stable_sort(structures.begin(), structures.end(), [](const auto& a, const auto& b) { return a.score > b.score; });
  std::string duplexes;
  int drawn = 0;
  for (const auto& st : structures) {
    if (drawn >= 5 || st.inter.empty()) continue;
    std::vector<std::pair<int, int>> pairs;
    std::istringstream in(st.inter);
    std::string item;
    while (std::getline(in, item, ',')) {
      const auto colon = item.find(':');
      if (colon == std::string::npos) continue;
      pairs.push_back({std::stoi(item.substr(0, colon)), std::stoi(item.substr(colon + 1))});
    }
    const auto& q = queries.at(st.query);
    const auto& t = targets.at(st.target);
    // A reverse-strand site is drawn on the strand that pairs: the reverse complement, its positions.
    std::string t_letters = letters.of("target", t), t_name = t.name;
    if (st.strand == 1) {
      t_letters = seq::reverse_complement_letters(t_letters);
      t_name += " (-)";
      for (auto& [qp, tp] : pairs) tp = static_cast<int>(t.length) + 1 - tp;
    }
    duplexes += fmt::format("<h4>{} x {} (score {})</h4>", html_escape(q.name), html_escape(t_name), format_score(st.score, scale));
    duplexes += svg_duplex(pairs, letters.of("query", q), t_letters, q.name, t_name);
    ++drawn;
  }
  std::string s = "<section id=\"bpmax\"><h2>BPMax interaction scores</h2>";
  s += fmt::format("<p>{} pairs scored.</p>", scores.size());
  s += "<div class=\"figures\">" + svg_histogram(values, "site score (weighted pairs)", "Pair scores") +
       svg_bars(bars, "best site score", "Best score per query") + "</div>";
  s += "<h3>Best sites</h3>" + table_html({"query", "target", "score", "query positions", "target positions"}, cells);
  s += "<h3>The best sites as duplexes</h3><p class=\"note\">Query 5'&#8594;3' above, target 3'&#8594;5' below; each line an intermolecular base pair.</p>" +
       (duplexes.empty() ? std::string("<p>(no structures: traceback was off)</p>") : duplexes) + "</section>";
  return s;
}

constexpr const char* kStyle = R"(<style>
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1400px; color: #222; }
h1 { font-size: 1.6em; } h2 { border-bottom: 2px solid #3b6ea8; padding-bottom: .2em; margin-top: 2em; }
table { border-collapse: collapse; font-size: .85em; margin: .5em 0 1em; }
td, th { border: 1px solid #ccc; padding: .25em .6em; text-align: left; } th { background: #eef2f7; }
.figures { display: flex; flex-wrap: wrap; gap: 1em; } .figure { background: #fafbfc; border: 1px solid #e3e6ea; }
pre { font-size: .8em; background: #f6f8fa; padding: .6em; overflow-x: auto; } .note { color: #666; font-size: .9em; }
</style>)";

int run_report(const ReportArgs& a) {
  if (a.top < 1) throw UsageError("--top must be at least 1");
  const std::string path = results_file_of(a.output);
  const store::ResultsReader rd(path);
  const Letters letters(rd.info());
  std::string html = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>screen report: " +
                     html_escape(rd.info().job_name) + "</title>" + kStyle + "</head><body>";
  html += "<h1>screen report: " + html_escape(rd.info().job_name) + "</h1>";
  html += job_section(rd, letters);
  if (rd.has_stage(store::StageKind::nussinov)) html += nussinov_section(rd, a.top);
  if (rd.has_stage(store::StageKind::miranda)) html += miranda_section(rd, a.top);
  if (rd.has_stage(store::StageKind::bpmax)) html += bpmax_section(rd, letters, a.top);
  html += "</body></html>\n";
  const std::string out_path =
      a.out.empty() ? (std::filesystem::is_directory(a.output) ? a.output + "/report.html" : "report.html") : a.out;
  OutputFile out(out_path);
  out.write(html);
  out.commit();
  spdlog::info("report: {}", out_path);
  return 0;
}

}  // namespace

void add_report(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("report", "Write one self-contained HTML page of a job's results, with figures");
  auto a = std::make_shared<ReportArgs>();
  cmd->add_option("output", a->output, "The job's output folder (or a results.h5)")->required();
  cmd->add_option("--out", a->out, "The HTML file (default: <output>/report.html; - for standard output)");
  cmd->add_option("--top", a->top, "Rows of the top-hits tables and bars of the per-query charts")->capture_default_str();
  cmd->callback([&action, a] { action = [a]() -> int { return run_report(*a); }; });
}

}  // namespace screen::cli
