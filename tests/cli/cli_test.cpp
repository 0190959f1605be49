#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/version.hpp"
#include "tests/cli/cli_temp_dir.hpp"
#include "tests/cli/run_screen.hpp"

namespace screen::testing {
namespace {

TEST(Cli, VersionPrintsVersionAndCommit) {
  auto r = run_screen({"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find(std::string("screen ") + version_string()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("commit"), std::string::npos) << r.out;
}

TEST(Cli, BenchNussinovFoldsTheRecordsOfAFastaWithAndWithoutStructures) {
  CliTempDir dir;
  const std::string fa = dir.write("some.fa", ">a\nGGGAAACCCAUGCAUGCAUG\n>b\nACGUACGUACGUAGCUAGCUAGCUAGCUAGGAUC\n>long\n" +
                                                  std::string(200, 'G') + "\n");
  const auto r =
      run_screen({"bench", "nussinov", "--device", "cpu", "--threads", "2", "--fasta", fa, "--max-length", "100"});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto has = [&](const std::string& s) { return r.out.find(s) != std::string::npos; };
  EXPECT_TRUE(has("some.fa x2")) << r.out;  // the 200-nt record left out
  EXPECT_TRUE(has(" 54 ")) << r.out;        // their nucleotides
  EXPECT_TRUE(has(" cpu ")) << r.out;
  EXPECT_TRUE(has(" cpu+tb ")) << r.out;
  EXPECT_FALSE(has("random")) << r.out;  // only the file's rows
}

TEST(Cli, NoSubcommandIsAUsageError) {
  auto r = run_screen({});
  EXPECT_EQ(r.exit_code, 2) << r.out;
}

TEST(Cli, UnknownSubcommandIsAUsageError) {
  auto r = run_screen({"frobnicate"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
}

TEST(Cli, EverySubcommandHasHelp) {
  for (const char* sub : {"run", "plan", "submit", "status", "merge", "export", "validate", "fold", "interact",
                          "align", "bench"}) {
    auto r = run_screen({sub, "--help"});
    EXPECT_EQ(r.exit_code, 0) << sub << ": " << r.out;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << sub << ": " << r.out;
  }
}

}  // namespace
}  // namespace screen::testing

// ---- screen validate ----------------------------------------------------------------------------
namespace screen::testing {
namespace {

// A temporary folder for bad manifests, removed at the end.
class ValidateDir {
 public:
  ValidateDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "screen-cli-validate-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
    write("q.fa", ">q1\nUGAGGUAGUAGGUUGUAUAGUU\n");
    write("t.fa", ">t1\nAACUAUACAACCUACUACCUCAGG\n");
  }
  ~ValidateDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const auto full = path_ / name;
    std::filesystem::create_directories(full.parent_path());
    std::ofstream(full, std::ios::binary) << text;
    return full.string();
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Lines 1-10 of a valid manifest; a test's stage lines start on line 11.
const std::string kValidateHead =
    "version: 1\njob:\n  name: t\nqueries:\n  - name: q\n    fasta: q.fa\ntargets:\n  - name: t\n    fasta: t.fa\n"
    "stages:\n";

bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

TEST(CliValidate, DemoConfigIsValidAndSummarised) {
  auto r = run_screen({"validate", "configs/demo.yaml"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "job         demo")) << r.out;
  EXPECT_TRUE(contains(r.out, "data/demo/mirnas.fa")) << r.out;
  EXPECT_TRUE(contains(r.out, "1. nussinov")) << r.out;
  EXPECT_TRUE(contains(r.out, "2. miranda")) << r.out;
  EXPECT_TRUE(contains(r.out, "3. bpmax")) << r.out;
  EXPECT_TRUE(contains(r.out, "target_window 64")) << r.out;
  EXPECT_TRUE(contains(r.out, "configs/demo.yaml: valid")) << r.out;
}

TEST(CliValidate, FlagshipConfigIsValidOnceItsTranscriptomeExists) {
  const bool generated = std::filesystem::exists("data/generated/human_transcripts.fa.gz");
  auto r = run_screen({"validate", "configs/svrna_vs_transcriptome.yaml"});
  if (generated) {
    EXPECT_EQ(r.exit_code, 0) << r.out;
  } else {
    EXPECT_EQ(r.exit_code, 3) << r.out;
    EXPECT_TRUE(contains(r.out, "configs/svrna_vs_transcriptome.yaml:31:12: targets[0].fasta: file not found")) << r.out;
  }
  // The same config in a copy of the repository's layout, with a small stand-in transcriptome.
  ValidateDir dir;
  std::ostringstream config;
  config << std::ifstream("configs/svrna_vs_transcriptome.yaml").rdbuf();
  std::ostringstream svrna;
  svrna << std::ifstream("data/svrna/sarscov2_svrna.fa").rdbuf();
  const std::string copy = dir.write("configs/svrna_vs_transcriptome.yaml", config.str());
  dir.write("data/svrna/sarscov2_svrna.fa", svrna.str());
  dir.write("data/generated/human_transcripts.fa.gz", ">synth_tx_000001\nACGUACGUACGUACGUACGUACGU\n");
  r = run_screen({"validate", copy});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "cluster     slurm, partition gpu")) << r.out;
  EXPECT_TRUE(contains(r.out, "target_window 128")) << r.out;
}

TEST(CliValidate, BadManifestsExitWithCode3NamingFileLineAndField) {
  ValidateDir dir;
  struct Case {
    std::string yaml;
    std::string expected;  // after "<path>:"
  };
  const std::vector<Case> cases = {
      {kValidateHead + "  bpmax:\n    target_window: -5\n", "12:20: stages.bpmax.target_window: must be >= 0 (got -5)"},
      {kValidateHead + "  bpmax:\n    taget_window: 64\n",
       "12:5: stages.bpmax.taget_window: unknown key (did you mean 'target_window'?)"},
      {kValidateHead + "  nussinov:\n    min_loop: three\n", "12:15: stages.nussinov.min_loop: expected an integer"},
      {kValidateHead + "  nussinov:\ncheckpoint:\n  every: 5 minutes\n", "13:10: checkpoint.every: expected a duration"},
      {kValidateHead + "  nussinov:\nresources:\n  devices: gpu\n", "13:12: resources.devices: expected auto, cpu or a list"},
      {kValidateHead + "  nussinov:\n    pairs: {AU: 0.3}\n", "12:17: stages.nussinov.pairs.AU: must be a multiple of 0.5"},
      {"version: 1\njob:\n  name: t\nqueries:\n  - name: q\n    fasta: absent.fa\nstages:\n  nussinov:\n",
       "6:12: queries[0].fasta: file not found"},
      {kValidateHead + "  nussinov:\n    min_loop: 3\n   max_span: 2\n", "13:4: YAML syntax error"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string path = dir.write("bad" + std::to_string(i) + ".yaml", cases[i].yaml);
    auto r = run_screen({"validate", path});
    EXPECT_EQ(r.exit_code, 3) << cases[i].yaml << r.out;
    EXPECT_TRUE(contains(r.out, path + ":" + cases[i].expected)) << cases[i].yaml << r.out;
    EXPECT_TRUE(contains(r.out, "screen: error: " + path + " is not valid (1 problem)")) << r.out;
  }
}

TEST(CliValidate, AllProblemsAreListedTogether) {
  ValidateDir dir;
  const std::string path = dir.write(
      "bad.yaml", kValidateHead + "  bpmax:\n    target_window: -5\n    traceback: tpo\nresources:\n  cpu_threads: -1\n");
  auto r = run_screen({"validate", path});
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_TRUE(contains(r.out, path + ":12:20: stages.bpmax.target_window: must be >= 0 (got -5)\n" + path +
                                  ":13:16: stages.bpmax.traceback: must be one of none, top, all (got 'tpo'); did you "
                                  "mean 'top'?\n" + path + ":15:16: resources.cpu_threads: must be >= 0 (got -1)\n"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "(3 problems)")) << r.out;
}

TEST(CliValidate, MissingManifestOrArgument) {
  auto r = run_screen({"validate", "no/such/manifest.yaml"});
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_TRUE(contains(r.out, "no/such/manifest.yaml: cannot read the manifest")) << r.out;
  r = run_screen({"validate"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
}

}  // namespace
}  // namespace screen::testing

// ---- screen fold (Nussinov) ----
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace screen::testing {
namespace {

std::string fold_fasta_file() {
  const auto path = std::filesystem::temp_directory_path() / ("screen_fold_test_" + std::to_string(::getpid()) + ".fa");
  std::ofstream(path) << ">hp one hairpin\nGGGAAAUCCC\n>tie\nGAAAACC\n>nothing\nACGUN\n>gu\nGGGGGU\n";
  return path.string();
}

TEST(CliFold, WritesTsvWithScoresAndStructures) {
  const auto fa = fold_fasta_file();
  auto r = run_screen({"-q", "fold", fa, "--device", "cpu"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("name\tlength\tscore\tstructure\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("hp\t10\t3\t(((...))).\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tie\t7\t1\t(....).\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("nothing\t5\t0\t.....\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gu\t6\t1\t.(...)\n"), std::string::npos) << r.out;
  // Weighted scores; every CPU method gives the same rows; a half-unit score prints as x.5.
  for (const char* method : {"reference", "cpu", "auto"}) {
    r = run_screen({"-q", "fold", fa, "--device", "cpu", "--method", method, "--weights", "CG=3,AU=2,GU=1.5",
                    "--no-traceback"});
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("hp\t10\t9\t\n"), std::string::npos) << method << ": " << r.out;
    EXPECT_NE(r.out.find("tie\t7\t3\t\n"), std::string::npos) << method << ": " << r.out;
    EXPECT_NE(r.out.find("gu\t6\t1.5\t\n"), std::string::npos) << method << ": " << r.out;
  }
  std::filesystem::remove(fa);
}

TEST(CliFold, RefusesWhatItCannotDo) {
  const auto fa = fold_fasta_file();
  auto r = run_screen({"fold", fa, "--format", "h5"});
  EXPECT_EQ(r.exit_code, 2) << r.out;  // an HDF5 file needs --out
  r = run_screen({"fold", fa, "--method", "four-russians", "--weights", "CG=3"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("unit pair weights"), std::string::npos) << r.out;
  r = run_screen({"fold", fa, "--device", "tpu"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  std::filesystem::remove(fa);
}

}  // namespace
}  // namespace screen::testing

namespace screen::testing {
namespace {

TEST(Cli, GlobalFlagsMayFollowTheSubcommand) {
  auto quiet = run_screen({"fold", "data/demo/mirnas.fa", "-q"});
  EXPECT_EQ(quiet.exit_code, 0) << quiet.out;
  EXPECT_EQ(quiet.out.find("info:"), std::string::npos) << quiet.out;
  auto chatty = run_screen({"fold", "data/demo/mirnas.fa"});
  EXPECT_EQ(chatty.exit_code, 0) << chatty.out;
  EXPECT_NE(chatty.out.find("info:"), std::string::npos) << chatty.out;
}

// Every subcommand exists now; what is not in this build (HDF5 output of the single-shot commands)
// says so and exits 5.
// `--format h5` of the single-shot commands writes the file `screen run` writes: its export holds
// the rows the TSV output holds.
TEST(Cli, FormatH5WritesTheResultsFileOfScreenRun) {
  CliTempDir dir;
  const auto lines = [](const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  };
  const auto field_rows = [&](const std::string& text, const std::vector<std::size_t>& fields) {
    std::vector<std::string> rows;
    for (const auto& line : lines(text)) {
      std::vector<std::string> cells;
      std::istringstream in(line);
      for (std::string c; std::getline(in, c, '\t');) cells.push_back(c);
      std::string row;
      for (const std::size_t f : fields) row += (f < cells.size() ? cells[f] : "?") + "|";
      rows.push_back(row);
    }
    std::sort(rows.begin() + 1, rows.end());  // the header stays first
    return rows;
  };
  struct Case {
    std::vector<std::string> args;
    std::string stage;
    std::vector<std::size_t> tsv_fields, export_fields;
  };
  const std::vector<Case> cases = {
      {{"fold", "data/demo/hairpins.fa", "--device", "cpu"}, "nussinov", {0, 1, 2, 3}, {2, 3, 4, 5}},
      {{"align", "data/demo/mirnas.fa", "data/demo/hairpins.fa", "--device", "cpu"}, "miranda", {0, 1, 2, 5, 6, 11, 14},
       {0, 1, 2, 5, 6, 11, 14}},
      {{"interact", "data/demo/mirnas.fa", "data/demo/hairpins.fa", "--target-window", "64", "--device", "cpu"}, "bpmax",
       {0, 1, 2, 3, 4}, {0, 1, 2, 5, 6}},
  };
  for (const auto& c : cases) {
    std::vector<std::string> tsv_args = c.args, h5_args = c.args;
    tsv_args.insert(tsv_args.begin(), "-q");
    h5_args.insert(h5_args.begin(), "-q");
    const std::string h5 = dir.path(c.stage + ".h5");
    h5_args.insert(h5_args.end(), {"--format", "h5", "--out", h5});
    const auto tsv = run_screen(tsv_args);
    ASSERT_EQ(tsv.exit_code, 0) << tsv.out;
    const auto made = run_screen(h5_args);
    ASSERT_EQ(made.exit_code, 0) << made.out;
    const auto exported = run_screen({"export", h5, "--stage", c.stage});
    ASSERT_EQ(exported.exit_code, 0) << exported.out;
    const auto want = field_rows(tsv.out, c.tsv_fields), got = field_rows(exported.out, c.export_fields);
    EXPECT_GT(want.size(), 5u) << c.stage;
    EXPECT_EQ(std::vector<std::string>(want.begin() + 1, want.end()), std::vector<std::string>(got.begin() + 1, got.end()))
        << c.stage;
  }
  // Standard input is not a file the engine can read; Turner folds are TSV only.
  EXPECT_EQ(run_screen({"fold", "-", "--format", "h5", "--out", dir.path("x.h5")}).exit_code, 2);
  EXPECT_EQ(run_screen({"fold", "data/demo/mirnas.fa", "--model", "turner", "--format", "h5", "--out", dir.path("y.h5")}).exit_code, 2);
  // No working folder is left beside the output.
  for (const auto& e : std::filesystem::directory_iterator(dir.path("")))
    EXPECT_EQ(e.path().filename().string().find(".screen-"), std::string::npos) << e.path();
}

// `-` reads FASTA from standard input (plain or gzip) in the single-shot commands: the same output
// as the file; messages name standard input.
TEST(CliStdin, DashReadsStandardInput) {
  CliTempDir dir;
  const std::string out_file = dir.path("a.tsv"), out_stdin = dir.path("b.tsv");
  const std::vector<std::vector<std::string>> commands = {
      {"-q", "fold", "@", "--out", ""},
      {"-q", "align", "data/demo/mirnas.fa", "@", "--device", "cpu", "--out", ""},
      {"-q", "interact", "data/demo/mirnas.fa", "@", "--target-window", "64", "--device", "cpu", "--out", ""},
  };
  for (const auto& c : commands) {
    const std::string input = c[1] == "fold" ? "data/demo/mirnas.fa" : "data/demo/hairpins.fa";
    auto with = [&](const std::string& in, const std::string& out) {
      std::vector<std::string> a = c;
      for (auto& w : a) {
        if (w == "@") w = in;
        if (w.empty()) w = out;
      }
      return a;
    };
    const auto f = run_screen(with(input, out_file));
    ASSERT_EQ(f.exit_code, 0) << f.out;
    const auto s = run_screen(with("-", out_stdin), input);
    ASSERT_EQ(s.exit_code, 0) << s.out;
    std::ifstream a(out_file), b(out_stdin);
    std::stringstream ta, tb;
    ta << a.rdbuf();
    tb << b.rdbuf();
    EXPECT_GT(ta.str().size(), 50u) << c[1];
    EXPECT_EQ(ta.str(), tb.str()) << c[1];
  }
  const std::string gz = dir.path("m.fa.gz");
  ASSERT_EQ(std::system(("gzip -c data/demo/mirnas.fa > " + gz).c_str()), 0);
  const auto zipped = run_screen({"-q", "fold", "-"}, gz);
  EXPECT_EQ(zipped.exit_code, 0) << zipped.out;
  EXPECT_TRUE(contains(zipped.out, "hsa-let-7a-5p\t22\t")) << zipped.out;
  const auto bad = run_screen({"-q", "fold", "-"}, dir.write("bad.fa", ">x\n"));
  EXPECT_EQ(bad.exit_code, 4);
  EXPECT_TRUE(contains(bad.out, "standard input:1: empty record 'x'")) << bad.out;
}

TEST(Cli, VersionJsonForWorkflowManagers) {
  const auto r = run_screen({"--version", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.rfind("{\"name\":\"screen\",\"version\":\"", 0), 0u) << r.out;
  EXPECT_TRUE(contains(r.out, "\"commit\":\"")) << r.out;
  EXPECT_TRUE(contains(r.out, "\"cuda\":true") || contains(r.out, "\"cuda\":false")) << r.out;
  EXPECT_TRUE(contains(r.out, "\"gpus\":[")) << r.out;
  EXPECT_EQ(r.out.back(), '\n');
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1);
}

}  // namespace
}  // namespace screen::testing
