// `screen export` formats on a real job (the demo manifest, on the CPU): CSV holds the TSV's cells,
// --columns picks and orders them, ".gz" names compress, --stage all writes every table, the
// per-pair summaries agree with the hits, and the BED6 of the sites is well formed and loads in
// bedtools (sort, merge).
#include <gtest/gtest.h>
#include <zlib.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/cli_temp_dir.hpp"
#include "tests/cli/demo_job.hpp"
#include "tests/cli/run_screen.hpp"

using screen::testing::CliTempDir;
using screen::testing::lines_of;
using screen::testing::read_file;
using screen::testing::run_screen;

namespace {

std::string read_gz(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  EXPECT_NE(f, nullptr) << path;
  if (f == nullptr) return {};
  std::string out;
  char buf[1 << 14];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  gzclose(f);
  return out;
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, sep)) out.push_back(cell);
  if (!line.empty() && line.back() == sep) out.emplace_back();
  return out;
}

// One CSV line (RFC 4180 quoting; no line breaks inside cells here).
std::vector<std::string> parse_csv(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t k = 0; k < line.size(); ++k) {
    const char c = line[k];
    if (quoted) {
      if (c == '"' && k + 1 < line.size() && line[k + 1] == '"') {
        out.back() += '"';
        ++k;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

// The demo job, run once for the whole suite.
class ExportFormats : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new CliTempDir;
    job_ = new std::string(screen::testing::run_demo_job(*dir_));
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete job_;
  }
  // `screen export JOB args... --out <file>`: the file's text.
  static std::string export_text(std::vector<std::string> args, const std::string& name) {
    const std::string path = dir_->path(name);
    std::vector<std::string> all{"export", *job_};
    all.insert(all.end(), args.begin(), args.end());
    all.push_back("--out");
    all.push_back(path);
    const auto r = run_screen(all);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    return name.size() > 3 && name.compare(name.size() - 3, 3, ".gz") == 0 ? read_gz(path) : read_file(path);
  }
  static CliTempDir* dir_;
  static std::string* job_;
};
CliTempDir* ExportFormats::dir_ = nullptr;
std::string* ExportFormats::job_ = nullptr;

TEST_F(ExportFormats, CsvHoldsTheTsvCellsAndGzipNamesCompress) {
  for (const char* stage : {"nussinov", "miranda", "miranda_pairs", "bpmax"}) {
    const auto tsv = lines_of(export_text({"--stage", stage}, std::string(stage) + ".tsv"));
    const auto csv = lines_of(export_text({"--stage", stage, "--format", "csv"}, std::string(stage) + ".csv"));
    ASSERT_GT(tsv.size(), 1u) << stage;
    ASSERT_EQ(tsv.size(), csv.size()) << stage;
    for (std::size_t k = 0; k < tsv.size(); ++k) EXPECT_EQ(split(tsv[k], '\t'), parse_csv(csv[k])) << stage << " line " << k;
    EXPECT_EQ(lines_of(export_text({"--stage", stage}, std::string(stage) + ".tsv.gz")), tsv) << stage;
  }
  // BPMax's intermolecular pairs hold commas: CSV quotes them.
  EXPECT_NE(read_file(dir_->path("bpmax.csv")).find(",\""), std::string::npos);
}

TEST_F(ExportFormats, ColumnsPickAndOrder) {
  const auto all = lines_of(export_text({"--stage", "bpmax"}, "b.tsv"));
  const auto some = lines_of(export_text({"--stage", "bpmax", "--columns", "target_begin,query,score"}, "b2.tsv"));
  ASSERT_EQ(all.size(), some.size());
  EXPECT_EQ(some[0], "target_begin\tquery\tscore");
  for (std::size_t k = 1; k < all.size(); ++k) {
    const auto a = split(all[k], '\t'), s = split(some[k], '\t');
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[0], a[5]);
    EXPECT_EQ(s[1], a[0]);
    EXPECT_EQ(s[2], a[2]);
  }
  const auto bad = run_screen({"export", *job_, "--stage", "bpmax", "--columns", "query,nope"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.out.find("no column 'nope'"), std::string::npos) << bad.out;
  EXPECT_EQ(run_screen({"export", *job_, "--stage", "nussinov", "--format", "bed"}).exit_code, 2);
  EXPECT_EQ(run_screen({"export", *job_, "--stage", "all"}).exit_code, 2);  // needs a folder
}

TEST_F(ExportFormats, StageAllWritesEveryTableAndPairsAgreeWithHits) {
  const std::string folder = dir_->path("all");
  const auto r = run_screen({"export", *job_, "--stage", "all", "--out", folder, "--gzip"});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  for (const char* stage : {"nussinov", "miranda", "miranda_pairs", "bpmax"})
    EXPECT_EQ(read_gz(folder + "/" + stage + ".tsv.gz"), export_text({"--stage", stage}, std::string("one-") + stage + ".tsv"))
        << stage;
  // Per pair: the hit count and the score total of the hits.
  std::map<std::pair<std::string, std::string>, std::pair<long, long>> from_hits;
  const auto hits = lines_of(export_text({"--stage", "miranda", "--columns", "query,target,score"}, "h.tsv"));
  for (std::size_t k = 1; k < hits.size(); ++k) {
    const auto c = split(hits[k], '\t');
    auto& v = from_hits[{c[0], c[1]}];
    v.first += 1;
    v.second += std::stol(c[2]);
  }
  const auto pairs = lines_of(export_text({"--stage", "miranda_pairs"}, "p.tsv"));
  EXPECT_EQ(pairs[0], "query\ttarget\ttotal_score\tmax_score\thit_count\ttruncated");
  ASSERT_EQ(pairs.size() - 1, from_hits.size());
  for (std::size_t k = 1; k < pairs.size(); ++k) {
    const auto c = split(pairs[k], '\t');
    const auto& v = from_hits.at({c[0], c[1]});
    EXPECT_EQ(std::stol(c[4]), v.first) << pairs[k];
    EXPECT_EQ(std::stol(c[2]), v.second) << pairs[k];
  }
}

TEST_F(ExportFormats, BedOfTheSitesLoadsInBedtools) {
  const auto bed = lines_of(export_text({"--stage", "all", "--format", "bed"}, "sites.bed"));
  const auto hits = lines_of(export_text({"--stage", "miranda"}, "hits.tsv"));
  std::size_t bpmax_sites = 0;
  for (const auto& line : lines_of(export_text({"--stage", "bpmax", "--columns", "score,target_begin"}, "s.tsv")))
    if (line != "score\ttarget_begin" && std::stod(split(line, '\t')[0]) > 0) ++bpmax_sites;
  EXPECT_EQ(bed.size(), hits.size() - 1 + bpmax_sites);
  ASSERT_GT(bed.size(), 10u);
  for (const auto& line : bed) {
    const auto c = split(line, '\t');
    ASSERT_EQ(c.size(), 6u) << line;
    EXPECT_GE(std::stol(c[1]), 0) << line;
    EXPECT_LT(std::stol(c[1]), std::stol(c[2])) << line;
    EXPECT_EQ(c[5], "+");
  }
  if (std::system("command -v bedtools >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "bedtools is not installed (scripts/setup installs it)";
  const std::string sorted = dir_->path("sorted.bed"), merged = dir_->path("merged.bed"), err = dir_->path("err.txt");
  ASSERT_EQ(std::system(("bedtools sort -i " + dir_->path("sites.bed") + " > " + sorted + " 2> " + err).c_str()), 0)
      << read_file(err);
  EXPECT_EQ(read_file(err), "");
  EXPECT_EQ(lines_of(read_file(sorted)).size(), bed.size());
  ASSERT_EQ(std::system(("bedtools merge -i " + sorted + " -c 4 -o distinct > " + merged + " 2> " + err).c_str()), 0)
      << read_file(err);
  EXPECT_EQ(read_file(err), "");
  const auto m = lines_of(read_file(merged));
  EXPECT_GT(m.size(), 0u);
  EXPECT_LE(m.size(), bed.size());
}

TEST_F(ExportFormats, SignificanceColumns) {
  // BPMax: every pair's score; per query the z-scores sum to zero (sample moments) and the p-values
  // fall as the scores rise.
  const auto rows = lines_of(export_text({"--stage", "bpmax", "--significance", "--columns", "query,score,pvalue,zscore"}, "sig.tsv"));
  ASSERT_EQ(rows[0], "query\tscore\tpvalue\tzscore");
  std::map<std::string, std::vector<std::array<double, 3>>> by_query;
  for (std::size_t k = 1; k < rows.size(); ++k) {
    const auto c = split(rows[k], '\t');
    ASSERT_EQ(c.size(), 4u);
    ASSERT_NE(c[2], "NA") << rows[k];
    by_query[c[0]].push_back({std::stod(c[1]), std::stod(c[2]), std::stod(c[3])});
  }
  ASSERT_GE(by_query.size(), 5u);
  for (const auto& [q, v] : by_query) {
    double zsum = 0;
    for (const auto& a : v) {
      EXPECT_GE(a[1], 0.0);
      EXPECT_LE(a[1], 1.0);
      zsum += a[2];
      for (const auto& b : v)
        if (a[0] < b[0]) {
          EXPECT_GE(a[1], b[1]) << q;
        }
    }
    EXPECT_NEAR(zsum, 0.0, 0.01 * static_cast<double>(v.size())) << q;
  }
  // miRanda: the demo's microRNAs hit too few targets (under three) for a fit: NA, said plainly.
  for (const auto& line : lines_of(export_text({"--stage", "miranda", "--significance", "--columns", "pvalue,zscore"}, "msig.tsv")))
    if (line != "pvalue\tzscore") {
      EXPECT_EQ(line, "NA\tNA");
    }
  EXPECT_EQ(run_screen({"export", *job_, "--stage", "nussinov", "--significance"}).exit_code, 2);
  // Without the flag the table is as before.
  EXPECT_EQ(split(lines_of(export_text({"--stage", "bpmax"}, "plain.tsv"))[0], '\t').size(), 9u);
}

}  // namespace
