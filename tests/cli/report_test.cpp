// `screen report` on the demo job: one self-contained page (no script, nothing fetched) with every
// stage's section and figures, the duplexes drawn with their letters; and it renders in headless
// Chromium (the DOM holds every figure, the screenshot is a real page).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/cli/cli_temp_dir.hpp"
#include "tests/cli/demo_job.hpp"
#include "tests/cli/run_screen.hpp"

namespace screen::testing {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(Report, SelfContainedPageWithEveryStageRendersInChromium) {
  CliTempDir dir;
  const std::string job = run_demo_job(dir);
  const auto r = run_screen({"-q", "report", job});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string page = read_file(job + "/report.html");
  for (const char* section : {"id=\"job\"", "id=\"nussinov\"", "id=\"miranda\"", "id=\"bpmax\""})
    EXPECT_EQ(count(page, section), 1u) << section;
  // Four histograms (folds, site scores, energies, pair scores), three bar charts, five duplexes.
  EXPECT_EQ(count(page, "<svg class=\"figure\""), 7u);
  EXPECT_EQ(count(page, "<svg class=\"figure duplex\""), 5u);
  EXPECT_EQ(count(page, "<script"), 0u);
  EXPECT_EQ(count(page, "src=\""), 0u);
  EXPECT_EQ(count(page, "href=\""), 0u);
  EXPECT_EQ(count(page, "Energy:"), 5u);  // the five alignment blocks, with their energies
  EXPECT_NE(page.find("hsa-miR-21-5p"), std::string::npos);
  // The inputs are where the job read them: the duplexes carry letters.
  EXPECT_NE(page.find("font-family=\"monospace\" text-anchor=\"middle\">G</text>"), std::string::npos);
  EXPECT_EQ(run_screen({"report", dir.path("nothing")}).exit_code, 4);

  if (std::system("command -v chromium >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "chromium is not installed (scripts/setup --cluster installs it)";
  const std::string url = "file://" + std::filesystem::absolute(job + "/report.html").string();
  const std::string flags = "--headless --no-sandbox --disable-gpu --hide-scrollbars";
  const std::string dom = dir.path("dom.html"), shot = dir.path("shot.png");
  ASSERT_EQ(std::system(("timeout 120 chromium " + flags + " --dump-dom '" + url + "' > " + dom + " 2>/dev/null").c_str()), 0);
  const std::string rendered = read_file(dom);
  EXPECT_EQ(count(rendered, "<svg"), count(page, "<svg"));
  EXPECT_EQ(count(rendered, "<rect"), count(page, "<rect"));
  ASSERT_EQ(std::system(("timeout 120 chromium " + flags + " --window-size=1400,2400 --screenshot=" + shot + " '" + url +
                         "' >/dev/null 2>&1")
                            .c_str()),
            0);
  ASSERT_TRUE(std::filesystem::exists(shot));
  EXPECT_GT(std::filesystem::file_size(shot), 50000u);  // a drawn page, not a blank one
}

TEST(Report, ReverseStrandSitesAreMarkedAndPrintedOnTheStrandScanned) {
  // The demo's microRNAs against their hairpins with strand: both: each hairpin's reverse complement
  // holds a perfect site of its own microRNA, the best sites of the job.
  CliTempDir dir;
  const std::string data = std::filesystem::absolute("data/demo").string();
  const std::string job = dir.path("job");
  const std::string manifest = "version: 1\njob: {name: strands, output: " + job + "}\nqueries: [{name: m, fasta: " + data +
                               "/mirnas.fa}]\ntargets: [{name: h, fasta: " + data +
                               "/hairpins.fa, strand: both}]\nstages: {miranda: {}, bpmax: {target_window: 32, "
                               "traceback: all}}\nresources: {devices: cpu, cpu_threads: 2}\n";
  auto r = run_screen({"-q", "run", dir.write("job.yaml", manifest)});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  r = run_screen({"-q", "report", job});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string page = read_file(job + "/report.html");
  EXPECT_GT(count(page, "hsa-let-7a-1 (-)"), 0u);
  EXPECT_EQ(count(page, "<svg class=\"figure duplex\""), 5u);
  // let-7a-5p's reverse-strand site in hsa-let-7a-1: the table gives forward positions, the
  // alignment block (as miRanda prints a scan of the reverse complement) that strand's own.
  const std::string tsv = dir.path("hits.tsv");
  ASSERT_EQ(run_screen({"export", job, "--stage", "miranda", "--out", tsv}).exit_code, 0);
  std::istringstream rows(read_file(tsv));
  std::string line;
  int rstart = 0, rend = 0;
  while (std::getline(rows, line)) {
    std::istringstream cells(line);
    std::string q, t, strand, score, qs, qe, rs, re;
    cells >> q >> t >> strand >> score >> qs >> qe >> rs >> re;
    if (q == "hsa-let-7a-5p" && t == "hsa-let-7a-1" && strand == "-") {
      rstart = std::stoi(rs);
      rend = std::stoi(re);
    }
  }
  ASSERT_GT(rstart, 0);
  std::ifstream fa(data + "/hairpins.fa");
  int length = 0;
  bool in = false;
  while (std::getline(fa, line)) {
    if (!line.empty() && line[0] == '>') {
      in = line.rfind(">hsa-let-7a-1 ", 0) == 0;
    } else if (in) {
      length += static_cast<int>(line.size());
    }
  }
  ASSERT_GT(length, 0);
  EXPECT_NE(page.find(std::to_string(rstart) + "-" + std::to_string(rend)), std::string::npos);
  const std::string scanned = "R:" + std::to_string(length + 1 - rend) + " to " + std::to_string(length + 1 - rstart);
  EXPECT_NE(page.find(scanned), std::string::npos) << scanned;
}

}  // namespace
}  // namespace screen::testing
