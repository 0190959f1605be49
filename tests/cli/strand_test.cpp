// Both strands (targets[].strand: both, --strand both): the demo's microRNAs against their own
// hairpins, whose reverse complements hold a perfect site of each mature microRNA (the planted
// reverse-strand sites), beside the SARS-CoV-2 slice scanned forward only. Checked through
// `screen run` + `screen export` and the single-shot commands:
//   - the '-' rows equal a forward run on the reverse-complemented hairpins (written here), with
//     positions turned to the forward strand;
//   - the '+' rows equal a run without the strand key, whose exports keep the forward layout;
//   - every mature microRNA's planted site is found on the '-' strand of its hairpin.
// devices: auto, so that the GPU paths run where there is a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/cli/cli_temp_dir.hpp"
#include "tests/cli/run_screen.hpp"

using screen::testing::CliTempDir;
using screen::testing::lines_of;
using screen::testing::read_file;
using screen::testing::run_screen;

namespace {

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, '\t')) out.push_back(cell);
  if (!line.empty() && line.back() == '\t') out.emplace_back();
  return out;
}

std::string join(const std::vector<std::string>& c) {
  std::string s;
  for (std::size_t k = 0; k < c.size(); ++k) s += (k ? "\t" : "") + c[k];
  return s;
}

struct Record {
  std::string name, header, seq;
};

std::vector<Record> read_fasta(const std::string& path) {
  std::vector<Record> out;
  for (const auto& line : lines_of(read_file(path))) {
    if (line.empty()) continue;
    if (line[0] == '>') {
      out.push_back({line.substr(1, line.find_first_of(" \t") - 1), line, ""});
    } else {
      out.back().seq += line;
    }
  }
  return out;
}

// The reverse complement of an RNA or DNA text in upper case (written independently of screen's own).
std::string reverse_complement(const std::string& s) {
  const std::map<char, char> c{{'A', 'U'}, {'C', 'G'}, {'G', 'C'}, {'U', 'A'}, {'T', 'A'}, {'N', 'N'}};
  std::string out;
  for (auto it = s.rbegin(); it != s.rend(); ++it) out += c.at(*it);
  return out;
}

std::string manifest(const std::string& out, const std::vector<std::pair<std::string, std::string>>& targets,
                     const std::string& strand_of_first) {
  const std::string data = std::filesystem::absolute("data/demo").string();
  std::string m = "version: 1\njob:\n  name: strands\n  output: " + out + "\nqueries:\n  - name: mirnas\n    fasta: " +
                  data + "/mirnas.fa\ntargets:\n";
  for (std::size_t k = 0; k < targets.size(); ++k) {
    m += "  - name: " + targets[k].first + "\n    fasta: " + targets[k].second + "\n";
    if (k == 0 && !strand_of_first.empty()) m += "    strand: " + strand_of_first + "\n";
  }
  m += "stages:\n  miranda:\n    score_threshold: 140\n  bpmax:\n    target_window: 32\n    traceback: all\n"
       "resources:\n  devices: auto\n  cpu_threads: 2\n";
  return m;
}

class BothStrands : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new CliTempDir;
    const std::string data = std::filesystem::absolute("data/demo").string();
    hairpins_ = new std::vector<Record>(read_fasta(data + "/hairpins.fa"));
    std::string rc;
    for (const auto& r : *hairpins_) rc += ">" + r.name + "\n" + reverse_complement(r.seq) + "\n";
    const std::string rc_path = dir_->write("hairpins_rc.fa", rc);
    const std::string slice = data + "/sarscov2_26904-29903.fa";
    run("both", {{"hairpins", data + "/hairpins.fa"}, {"slice", slice}}, "both");
    run("forward", {{"hairpins", data + "/hairpins.fa"}, {"slice", slice}}, "");
    run("explicit_forward", {{"hairpins", data + "/hairpins.fa"}, {"slice", slice}}, "forward");
    run("rc", {{"hairpins", rc_path}}, "");
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete hairpins_;
  }
  static void run(const std::string& name, const std::vector<std::pair<std::string, std::string>>& targets,
                  const std::string& strand) {
    const std::string path = dir_->write(name + ".yaml", manifest(dir_->path(name), targets, strand));
    const auto r = run_screen({"-q", "run", path});
    ASSERT_EQ(r.exit_code, 0) << r.out;
  }
  // `screen export <job> --stage S [--format F]`: its lines.
  static std::vector<std::string> exported(const std::string& job, const std::string& stage,
                                           const std::string& format = "tsv") {
    const std::string out = dir_->path(job + "-" + stage + "." + format);
    const auto r = run_screen({"export", dir_->path(job), "--stage", stage, "--format", format, "--out", out});
    EXPECT_EQ(r.exit_code, 0) << r.out;
    return lines_of(read_file(out));
  }
  static std::size_t length_of(const std::string& hairpin) {
    for (const auto& r : *hairpins_)
      if (r.name == hairpin) return r.seq.size();
    ADD_FAILURE() << "no hairpin " << hairpin;
    return 0;
  }
  static CliTempDir* dir_;
  static std::vector<Record>* hairpins_;
};
CliTempDir* BothStrands::dir_ = nullptr;
std::vector<Record>* BothStrands::hairpins_ = nullptr;

// Rows of `lines` (header dropped) of one strand, the strand cell (column 2) removed.
std::vector<std::vector<std::string>> strand_rows(const std::vector<std::string>& lines, const std::string& strand) {
  std::vector<std::vector<std::string>> out;
  for (std::size_t k = 1; k < lines.size(); ++k) {
    auto c = cells(lines[k]);
    if (c.at(2) != strand) continue;
    c.erase(c.begin() + 2);
    out.push_back(c);
  }
  return out;
}

std::vector<std::vector<std::string>> rows_of(const std::vector<std::string>& lines) {
  std::vector<std::vector<std::string>> out;
  for (std::size_t k = 1; k < lines.size(); ++k) out.push_back(cells(lines[k]));
  return out;
}

std::string flip(const std::string& position, std::size_t length) {
  return std::to_string(static_cast<long>(length) + 1 - std::stol(position));
}

TEST_F(BothStrands, ForwardRowsAreTheForwardRunsAndItsLayoutIsUnchanged) {
  for (const char* stage : {"miranda", "miranda_pairs", "bpmax"}) {
    const auto both = exported("both", stage), forward = exported("forward", stage);
    ASSERT_GT(forward.size(), 1u) << stage;
    EXPECT_EQ(exported("explicit_forward", stage), forward) << stage;  // strand: forward = no key
    // The forward layout has no strand column; both strands add it after target.
    const auto fh = cells(forward[0]), bh = cells(both[0]);
    EXPECT_EQ(std::count(fh.begin(), fh.end(), "strand"), 0) << stage;
    ASSERT_EQ(bh.at(2), "strand") << stage;
    auto bh_without = bh;
    bh_without.erase(bh_without.begin() + 2);
    EXPECT_EQ(bh_without, fh) << stage;
    EXPECT_EQ(strand_rows(both, "+"), rows_of(forward)) << stage;
    // The slice (strand forward) has no reverse rows.
    for (const auto& r : strand_rows(both, "-")) EXPECT_NE(r.at(1).rfind("NC_045512", 0), 0u) << stage;
  }
}

TEST_F(BothStrands, ReverseRowsAreARunOnTheReverseComplementsAtForwardPositions) {
  // miRanda: rstart (column 6 without strand) and rend (7) of the reverse complement -> forward.
  {
    auto minus = strand_rows(exported("both", "miranda"), "-");
    ASSERT_FALSE(minus.empty());
    std::multiset<std::string> mapped, rc;
    for (auto& r : minus) {
      const std::size_t len = length_of(r.at(1));
      const std::string start = r.at(5), end = r.at(6);
      r.at(5) = flip(end, len);
      r.at(6) = flip(start, len);
      mapped.insert(join(r));
    }
    for (const auto& r : rows_of(exported("rc", "miranda"))) rc.insert(join(r));
    EXPECT_EQ(mapped, rc);
    EXPECT_EQ(strand_rows(exported("both", "miranda_pairs"), "-"), rows_of(exported("rc", "miranda_pairs")));
  }
  // BPMax: target_begin (5), target_end (6) and the intermolecular pairs (8) -> forward.
  {
    auto minus = strand_rows(exported("both", "bpmax"), "-");
    ASSERT_FALSE(minus.empty());
    std::multiset<std::string> mapped, rc;
    for (auto& r : minus) {
      const std::size_t len = length_of(r.at(1));
      if (std::stol(r.at(6)) >= std::stol(r.at(5))) {
        const std::string b = r.at(5), e = r.at(6);
        r.at(5) = flip(e, len);
        r.at(6) = flip(b, len);
      }
      std::string inter;
      std::istringstream in(r.at(8));
      std::string pair;
      while (std::getline(in, pair, ',')) {
        const auto colon = pair.find(':');
        inter += (inter.empty() ? "" : ",") + pair.substr(0, colon + 1) + flip(pair.substr(colon + 1), len);
      }
      r.at(8) = inter;
      mapped.insert(join(r));
    }
    for (const auto& r : rows_of(exported("rc", "bpmax"))) rc.insert(join(r));
    EXPECT_EQ(mapped, rc);
  }
  // miRanda's text: a reverse pair is NAME(-) with the positions of the strand scanned, as miRanda
  // prints a scan of the reverse complement ('>' lines equal; the '>>' counters differ).
  std::vector<std::string> both_hits, rc_hits;
  for (const auto& l : exported("both", "miranda", "miranda")) {
    if (l.rfind(">>", 0) == 0 || l.find("(-)") == std::string::npos) continue;
    std::string s = l;
    s.erase(s.find("(-)"), 3);
    both_hits.push_back(s);
  }
  for (const auto& l : exported("rc", "miranda", "miranda"))
    if (l.rfind(">>", 0) != 0) rc_hits.push_back(l);
  std::sort(both_hits.begin(), both_hits.end());
  std::sort(rc_hits.begin(), rc_hits.end());
  EXPECT_FALSE(rc_hits.empty());
  EXPECT_EQ(both_hits, rc_hits);
}

TEST_F(BothStrands, FindsThePlantedReverseStrandSites) {
  // Each mature microRNA lies in its own hairpin as written, so the hairpin's reverse complement
  // holds its perfect site: a '-' hit over the mature sequence's forward interval.
  const auto mirnas = read_fasta(std::filesystem::absolute("data/demo/mirnas.fa").string());
  const auto minus = strand_rows(exported("both", "miranda"), "-");
  int planted = 0;
  for (const auto& m : mirnas) {
    for (const auto& h : *hairpins_) {
      const auto at = h.seq.find(m.seq);
      if (at == std::string::npos) continue;
      ++planted;
      const long begin = static_cast<long>(at) + 1, end = begin + static_cast<long>(m.seq.size()) - 1;
      bool found = false;
      for (const auto& r : minus) {
        if (r.at(0) != m.name || r.at(1) != h.name) continue;
        const long s = std::stol(r.at(5)), e = std::stol(r.at(6));
        found = found || (std::min(e, end) - std::max(s, begin) + 1 >= static_cast<long>(m.seq.size()) - 2);
      }
      EXPECT_TRUE(found) << m.name << " in " << h.name << " at " << begin << ".." << end;
    }
  }
  EXPECT_GE(planted, 5);
  // And in BED6 they carry strand '-' at those forward positions.
  const auto bed = exported("both", "miranda", "bed");
  EXPECT_NE(std::find_if(bed.begin(), bed.end(), [](const std::string& l) { return cells(l).at(5) == "-"; }), bed.end());
}

TEST_F(BothStrands, SingleShotCommandsAgree) {
  const std::string data = std::filesystem::absolute("data/demo").string();
  // screen align --strand both: the job's rows for the hairpins (align writes them in report order).
  const std::string tsv = dir_->path("align.tsv");
  auto r = run_screen({"align", data + "/mirnas.fa", data + "/hairpins.fa", "--strand", "both", "--out", tsv});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::multiset<std::string> align_rows, job_rows;
  const auto align_lines = lines_of(read_file(tsv));
  ASSERT_FALSE(align_lines.empty());
  EXPECT_EQ(align_lines[0], exported("both", "miranda")[0]);
  for (const auto& c : rows_of(align_lines)) align_rows.insert(join(c));
  for (const auto& c : rows_of(exported("both", "miranda")))
    if (c.at(1).rfind("NC_045512", 0) != 0) job_rows.insert(join(c));
  EXPECT_EQ(align_rows, job_rows);
  // --format h5 --strand both writes the job layout.
  const std::string h5 = dir_->path("align.h5");
  r = run_screen({"align", data + "/mirnas.fa", data + "/hairpins.fa", "--strand", "both", "--format", "h5", "--out", h5,
                  "--device", "cpu"});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string h5_tsv = dir_->path("align-h5.tsv");
  r = run_screen({"export", h5, "--stage", "miranda", "--out", h5_tsv});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::multiset<std::string> h5_rows;
  for (const auto& c : rows_of(lines_of(read_file(h5_tsv)))) h5_rows.insert(join(c));
  EXPECT_EQ(h5_rows, job_rows);

  // screen interact --strand both: its '-' rows are interact on the reverse complements, flipped.
  const std::string both_tsv = dir_->path("interact.tsv"), rc_tsv = dir_->path("interact-rc.tsv");
  r = run_screen({"interact", data + "/mirnas.fa", data + "/hairpins.fa", "--strand", "both", "--target-window", "32",
                  "--out", both_tsv});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  r = run_screen({"interact", data + "/mirnas.fa", dir_->path("hairpins_rc.fa"), "--target-window", "32", "--out", rc_tsv});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto both_lines = lines_of(read_file(both_tsv));
  ASSERT_FALSE(both_lines.empty());
  EXPECT_EQ(both_lines[0], "query\ttarget\tstrand\tscore\tsite_start\tsite_end");
  auto minus = strand_rows(both_lines, "-");
  for (auto& c : minus) {
    const std::size_t len = length_of(c.at(1));
    if (std::stol(c.at(4)) >= std::stol(c.at(3))) {
      const std::string b = c.at(3), e = c.at(4);
      c.at(3) = flip(e, len);
      c.at(4) = flip(b, len);
    }
  }
  EXPECT_EQ(minus, rows_of(lines_of(read_file(rc_tsv))));
  EXPECT_EQ(strand_rows(both_lines, "+").size(), minus.size());
  // Wrong values are usage errors.
  EXPECT_EQ(run_screen({"align", data + "/mirnas.fa", data + "/hairpins.fa", "--strand", "reverse"}).exit_code, 2);
  EXPECT_EQ(run_screen({"interact", "--pairs", data + "/mirnas.fa", "--strand", "both"}).exit_code, 2);
}

}  // namespace
