// Every validation rule: each bad manifest gives a "file:line:column: field.path: problem" line.
// kHead (manifest_fixture.hpp) fills lines 1-10, so the stage lines of each test start on line 11.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/error.hpp"
#include "manifest/load_manifest.hpp"
#include "tests/manifest/manifest_fixture.hpp"

namespace screen::testing {
namespace {

using Validation = ManifestFixture;

std::string head_with(const std::string& stage_lines) { return std::string(kHead) + stage_lines; }

// kHead with line `line_no` (1-based) replaced.
std::string head_replacing(int line_no, const std::string& line) {
  std::string out;
  int n = 0;
  std::string text = kHead;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    ++n;
    out += (n == line_no ? line : text.substr(start, end - start)) + "\n";
    start = end + 1;
  }
  return out;
}

TEST_F(Validation, NegativeWindowNamesFileLineColumnAndField) {
  auto e = errors(head_with("  bpmax:\n    target_window: -5\n"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], at(12, 20, "stages.bpmax.target_window: must be >= 0 (got -5)"));
  e = errors(head_with("  bpmax:\n    query_window: -1\n"));
  EXPECT_TRUE(has_line(e, at(12, 19, "stages.bpmax.query_window: must be >= 0 (got -1)")));
}

TEST_F(Validation, MisspeltKeySuggestsTheClosestValidKey) {
  auto e = errors(head_with("  bpmax:\n    taget_window: 64\n"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], at(12, 5, "stages.bpmax.taget_window: unknown key (did you mean 'target_window'?)"));
  e = errors(head_with("  nusinov:\n"));
  EXPECT_TRUE(has_line(e, at(11, 3, "stages.nusinov: unknown key (did you mean 'nussinov'?)")));
  e = errors(head_with("  nussinov:\n    pairs: {AT: 1}\n"));
  EXPECT_TRUE(has_line_with(e, "stages.nussinov.pairs.AT: unknown key (did you mean 'AU'?)"));
}

TEST_F(Validation, TargetStrandIsForwardOrBothAndATargetKeyOnly) {
  // Line 9 is the target set's `fasta:`; its strand goes on the line after.
  const std::string with_strand = head_replacing(9, "    fasta: t.fa\n    strand: both");
  manifest::Job job = load(with_strand + "  miranda:\n");
  ASSERT_EQ(job.targets.size(), 1u);
  EXPECT_EQ(job.targets[0].strand, manifest::Strand::both);
  EXPECT_TRUE(job.any_both_strands());
  job = load(head_with("  miranda:\n"));
  EXPECT_EQ(job.targets[0].strand, manifest::Strand::forward);
  EXPECT_FALSE(job.any_both_strands());
  EXPECT_TRUE(has_line(errors(head_replacing(9, "    fasta: t.fa\n    strand: reverse") + "  miranda:\n"),
                       at(10, 13, "targets[0].strand: must be one of forward, both (got 'reverse')")));
  // Queries (microRNAs) are read as written: no strand key.
  EXPECT_TRUE(has_line_with(errors(head_replacing(6, "    fasta: q.fa\n    strand: both") + "  miranda:\n"),
                            "queries[0].strand: unknown key"));
}

TEST_F(Validation, MisspeltTopLevelKey) {
  const auto e = errors(head_replacing(10, "stage:") + "  nussinov:\n");
  EXPECT_TRUE(has_line(e, at(10, 1, "stage: unknown key (did you mean 'stages'?)")));
  EXPECT_TRUE(has_line(e, at(1, 1, "stages: required (enable at least one of nussinov, miranda, bpmax)")));
}

TEST_F(Validation, UnknownKeyWithNothingCloseListsTheValidKeys) {
  const auto e = errors(head_with("  nussinov:\n    colour: red\n"));
  EXPECT_TRUE(has_line(
      e, at(12, 5, "stages.nussinov.colour: unknown key (valid keys: enabled, min_loop, max_span, pairs, traceback)")));
}

TEST_F(Validation, WrongTypesNameTheExpectedType) {
  EXPECT_TRUE(has_line(errors(head_with("  nussinov:\n    min_loop: abc\n")),
                       at(12, 15, "stages.nussinov.min_loop: expected an integer, got 'abc'")));
  EXPECT_TRUE(has_line(errors(head_with("  nussinov:\n    min_loop: 1.5\n")),
                       at(12, 15, "stages.nussinov.min_loop: expected an integer, got '1.5'")));
  EXPECT_TRUE(has_line(errors(head_with("  nussinov:\n    min_loop:\n")),
                       at(12, 5, "stages.nussinov.min_loop: expected an integer, got an empty value")));
  EXPECT_TRUE(has_line(errors(head_with("  nussinov:\n    pairs: [1, 2]\n")),
                       at(12, 12, "stages.nussinov.pairs: expected a mapping (key: value lines), got a list")));
  EXPECT_TRUE(has_line(errors(head_with("  nussinov:\n    traceback: maybe\n")),
                       at(12, 16, "stages.nussinov.traceback: expected true or false, got 'maybe'")));
  EXPECT_TRUE(has_line(errors(head_with("  miranda:\n    scale: fast\n")),
                       at(12, 12, "stages.miranda.scale: expected a number, got 'fast'")));
  EXPECT_TRUE(has_line_with(errors(head_with("  - nussinov\n")), "stages: expected a mapping (key: value lines), got a list"));
  EXPECT_TRUE(has_line(errors("job:\n  name: t\nqueries: {name: q, fasta: q.fa}\nstages:\n  nussinov:\n"),
                       at(3, 10, "queries: expected a list of sets (- name: ..., fasta: ...), got a mapping")));
  EXPECT_TRUE(has_line(errors(head_replacing(3, "  name: [a, b]") + "  nussinov:\n"),
                       at(3, 9, "job.name: expected text, got a list")));
}

TEST_F(Validation, MissingOrUnusableInputFilesAreReportedWithTheirField) {
  auto e = errors(head_replacing(6, "    fasta: missing.fa") + "  nussinov:\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], at(6, 12, "queries[0].fasta: file not found: " + (dir.path() / "missing.fa").string()));
  e = errors(head_replacing(9, "    fasta: nowhere/t.fa.gz") + "  nussinov:\n");
  EXPECT_TRUE(has_line(e, at(9, 12, "targets[0].fasta: file not found: " + (dir.path() / "nowhere/t.fa.gz").string())));
  std::filesystem::create_directories(dir.path() / "afolder");
  e = errors(head_replacing(6, "    fasta: afolder") + "  nussinov:\n");
  EXPECT_TRUE(has_line(e, at(6, 12, "queries[0].fasta: is a folder, not a FASTA file: " + (dir.path() / "afolder").string())));
}

TEST_F(Validation, BadDurations) {
  for (const char* bad : {"5 minutes", "300", "1m30h", "0s", "-5min", "5ms", "1h1h", "soon"}) {
    const auto e = errors(head_with("  nussinov:\ncheckpoint:\n  every: " + std::string(bad) + "\n"));
    EXPECT_TRUE(has_line(e, at(13, 10, "checkpoint.every: expected a duration with a unit, such as 30s, 5min, 2h or "
                                       "1h30m, got '" + std::string(bad) + "'")))
        << bad;
  }
}

TEST_F(Validation, BadMaxUnitMemory) {
  for (const char* bad : {"lots", "0", "-1GiB", "64 GB of RAM"}) {
    const auto e = errors(head_with("  nussinov:\nresources:\n  max_unit_memory: " + std::string(bad) + "\n"));
    EXPECT_TRUE(has_line_with(e, "resources.max_unit_memory: expected a memory size such as 64GiB, 512MiB or 100GB, got '" +
                                     std::string(bad) + "'"))
        << bad;
  }
}

TEST_F(Validation, BadDevices) {
  const std::string res = head_with("  nussinov:\n") + "resources:\n  devices: ";
  EXPECT_TRUE(has_line(errors(res + "gpu\n"),
                       at(13, 12, "resources.devices: expected auto, cpu or a list of GPU indices such as [0, 1], got 'gpu'")));
  EXPECT_TRUE(has_line(errors(res + "1\n"),
                       at(13, 12, "resources.devices: expected auto, cpu or a list of GPU indices such as [0, 1], got "
                                  "'1'; write [1] for that one GPU")));
  EXPECT_TRUE(has_line(errors(res + "[0, 0]\n"), at(13, 16, "resources.devices[1]: GPU 0 is listed twice")));
  EXPECT_TRUE(has_line(errors(res + "[-1]\n"), at(13, 13, "resources.devices[0]: must be >= 0 (got -1)")));
  EXPECT_TRUE(has_line(errors(res + "[0, x]\n"), at(13, 16, "resources.devices[1]: expected an integer, got 'x'")));
  EXPECT_TRUE(has_line_with(errors(res + "[]\n"), "resources.devices: the list of GPU indices is empty"));
}

TEST_F(Validation, BadResourcesAndSharding) {
  const std::string base = head_with("  nussinov:\n");
  EXPECT_TRUE(has_line(errors(base + "resources:\n  gpu_memory_fraction: 0\n"),
                       at(13, 24, "resources.gpu_memory_fraction: must be in (0, 1] (got 0)")));
  EXPECT_TRUE(has_line(errors(base + "resources:\n  gpu_memory_fraction: 1.5\n"),
                       at(13, 24, "resources.gpu_memory_fraction: must be in (0, 1] (got 1.5)")));
  EXPECT_TRUE(has_line(errors(base + "resources:\n  cpu_threads: -1\n"),
                       at(13, 16, "resources.cpu_threads: must be >= 0 (got -1)")));
  EXPECT_TRUE(has_line(errors(base + "resources:\n  cpu_threads: 4097\n"),
                       at(13, 16, "resources.cpu_threads: must be <= 4096 (got 4097)")));
  EXPECT_TRUE(has_line(errors(base + "resources:\n  cpu_threads: many\n"),
                       at(13, 16, "resources.cpu_threads: expected auto or a thread count, got 'many'")));
  EXPECT_TRUE(has_line(errors(base + "sharding:\n  shards: 0\n"), at(13, 11, "sharding.shards: must be >= 1 (got 0)")));
  EXPECT_TRUE(has_line(errors(base + "sharding:\n  target_shard_minutes: -1\n"),
                       at(13, 25, "sharding.target_shard_minutes: must be > 0 (got -1)")));
}

TEST_F(Validation, BadPairWeights) {
  auto pairs = [](const std::string& map) { return head_with("  nussinov:\n    pairs: " + map + "\n"); };
  EXPECT_TRUE(has_line(errors(pairs("{AU: -1}")), at(12, 17, "stages.nussinov.pairs.AU: must be >= 0 (got -1)")));
  auto e = errors(pairs("{AU: 0.3}"));
  ASSERT_EQ(e.size(), 1u);  // not also "at least one weight must be > 0"
  EXPECT_EQ(e[0], at(12, 17, "stages.nussinov.pairs.AU: must be a multiple of 0.5 (got 0.3)"));
  EXPECT_TRUE(has_line(errors(pairs("{AU: 2000}")), at(12, 17, "stages.nussinov.pairs.AU: must be <= 1000 (got 2000)")));
  EXPECT_TRUE(has_line(errors(pairs("{AU: x}")), at(12, 17, "stages.nussinov.pairs.AU: expected a number, got 'x'")));
  EXPECT_TRUE(has_line(errors(pairs("{AU: 0, CG: 0, GU: 0}")),
                       at(12, 12, "stages.nussinov.pairs: at least one pair weight must be > 0")));
  EXPECT_TRUE(has_line_with(errors(head_with("  bpmax:\n    pairs: {GU: 0.25}\n")),
                            "stages.bpmax.pairs.GU: must be a multiple of 0.5 (got 0.25)"));
}

TEST_F(Validation, StageParameterRanges) {
  EXPECT_TRUE(has_line(errors(head_with("  nussinov:\n    min_loop: -1\n")),
                       at(12, 15, "stages.nussinov.min_loop: must be >= 0 (got -1)")));
  EXPECT_TRUE(has_line_with(errors(head_with("  nussinov:\n    max_span: 4\n")),
                            "stages.nussinov.max_span: must be 0 (unlimited) or > min_loop + 1 = 4"));
  EXPECT_TRUE(has_line(errors(head_with("  miranda:\n    score_threshold: 0\n")),
                       at(12, 22, "stages.miranda.score_threshold: must be > 0 and <= 1000000 (got 0)")));
  EXPECT_TRUE(has_line(errors(head_with("  miranda:\n    scale: 0\n")),
                       at(12, 12, "stages.miranda.scale: must be > 0 and <= 100 (got 0)")));
  EXPECT_TRUE(has_line(errors(head_with("  miranda:\n    gap_open: 9\n")),
                       at(12, 15, "stages.miranda.gap_open: must be a penalty between -1000 and 0 (got 9)")));
  EXPECT_TRUE(has_line(errors(head_with("  miranda:\n    max_hits_per_pair: -3\n")),
                       at(12, 24, "stages.miranda.max_hits_per_pair: must be >= 0 (got -3)")));
  EXPECT_TRUE(has_line(errors(head_with("  bpmax:\n    traceback: tpo\n")),
                       at(12, 16, "stages.bpmax.traceback: must be one of none, top, all (got 'tpo'); did you mean 'top'?")));
  EXPECT_TRUE(has_line(errors(head_with("  bpmax:\n    report_threshold: -2\n")),
                       at(12, 23, "stages.bpmax.report_threshold: must be >= 0 (got -2)")));
  EXPECT_TRUE(has_line(errors(head_with("  bpmax: sure\n")), at(11, 10, "stages.bpmax: expected true or false, got 'sure'")));
  EXPECT_TRUE(has_line(errors(head_with("  bpmax:\n    enabled: sure\n")),
                       at(12, 14, "stages.bpmax.enabled: expected true or false, got 'sure'")));
}

TEST_F(Validation, StagesAndSetsRequired) {
  EXPECT_TRUE(has_line(errors(head_with("  nussinov:\n    enabled: false\n")),
                       at(11, 3, "stages: no stage is enabled (enable at least one of nussinov, miranda, bpmax)")));
  EXPECT_TRUE(has_line(errors(std::string(kHead).substr(0, std::string(kHead).find("stages:"))),
                       at(1, 1, "stages: required (enable at least one of nussinov, miranda, bpmax)")));
  // No targets: fine for folding alone, required for miranda and bpmax.
  const std::string no_targets = "job:\n  name: t\nqueries:\n  - name: q\n    fasta: q.fa\nstages:\n";
  EXPECT_NO_THROW(load(no_targets + "  nussinov:\n"));
  EXPECT_TRUE(has_line(errors(no_targets + "  bpmax:\n"),
                       at(1, 1, "targets: required (the miranda and bpmax stages screen queries against targets)")));
  EXPECT_TRUE(has_line(errors("job:\n  name: t\nstages:\n  nussinov:\n"),
                       at(1, 1, "queries: required (a list of sets, - name: ..., fasta: ...)")));
  EXPECT_TRUE(has_line(errors("job:\n  name: t\nqueries: []\nstages:\n  nussinov:\n"),
                       at(3, 10, "queries: needs at least one set")));
  EXPECT_TRUE(has_line_with(errors(head_replacing(3, "  output: out") + "  nussinov:\n"), "job.name: required"));
  EXPECT_TRUE(has_line_with(errors(head_replacing(6, "    min_length: 3") + "  nussinov:\n"), "queries[0].fasta: required"));
}

TEST_F(Validation, NamesAndLengths) {
  EXPECT_TRUE(has_line(errors(head_replacing(3, "  name: my job") + "  nussinov:\n"),
                       at(3, 9, "job.name: 'my job' may use only letters, digits, '_', '-' and '.'")));
  EXPECT_TRUE(has_line(errors(head_replacing(8, "  - name: q") + "  nussinov:\n"),
                       at(8, 11, "targets[0].name: duplicate set name 'q' (also queries[0].name)")));
  EXPECT_TRUE(has_line(errors(head_replacing(6, "    fasta: q.fa\n    min_length: 30\n    max_length: 20") + "  nussinov:\n"),
                       at(8, 17, "queries[0].max_length: must be 0 (unlimited) or >= min_length 30 (got 20)")));
  EXPECT_TRUE(has_line(errors(head_replacing(6, "    fasta: q.fa\n    min_length: 0") + "  nussinov:\n"),
                       at(7, 17, "queries[0].min_length: must be >= 1 (got 0)")));
}

TEST_F(Validation, VersionDuplicatesAndCluster) {
  EXPECT_TRUE(has_line(errors(head_replacing(1, "version: 2") + "  nussinov:\n"),
                       at(1, 10, "version: unsupported manifest version 2 (this screen reads version 1)")));
  EXPECT_TRUE(has_line(errors(head_with("  nussinov:\n    min_loop: 3\n    min_loop: 4\n")),
                       at(13, 5, "stages.nussinov.min_loop: duplicate key (first given at line 12)")));
  const std::string base = head_with("  nussinov:\n") + "cluster:\n";
  EXPECT_TRUE(has_line(errors(base + "  time_limit: \"25:61:00\"\n"),
                       at(13, 15, "cluster.time_limit: expected a time limit \"HH:MM:SS\" or \"D-HH:MM:SS\", got '25:61:00'")));
  EXPECT_TRUE(has_line_with(errors(base + "  time_limit: 1-24:00:00\n"), "cluster.time_limit: expected a time limit"));
  EXPECT_TRUE(has_line_with(errors(base + "  time_limit: 90\n"), "cluster.time_limit: expected a time limit"));
  EXPECT_TRUE(has_line(errors(base + "  scheduler: pbs\n"),
                       at(13, 14, "cluster.scheduler: must be one of slurm (got 'pbs')")));
  EXPECT_TRUE(has_line(errors(base + "  extra_sbatch: [\"--qos=x\", \"account=rna\"]\n"),
                       at(13, 29, "cluster.extra_sbatch[1]: 'account=rna' is not an sbatch option (options start "
                                  "with '-', e.g. --account=rna)")));
  EXPECT_TRUE(has_line(errors(base + "  extra_sbatch: --account=rna\n"),
                       at(13, 17, "cluster.extra_sbatch: expected a list of sbatch options such as [\"--account=rna\"], "
                                  "got '--account=rna'")));
  EXPECT_TRUE(has_line(errors(base + "  max_concurrent: -1\n"), at(13, 19, "cluster.max_concurrent: must be >= 0 (got -1)")));
}

TEST_F(Validation, AllProblemsAreReportedTogetherInFileOrder) {
  const auto e = errors(head_replacing(6, "    fasta: missing.fa") +
                        "  miranda:\n    scale: -1\n    strickt: true\n"
                        "  bpmax:\n    target_window: -5\n"
                        "checkpoint:\n  every: often\n");
  ASSERT_EQ(e.size(), 5u);
  EXPECT_EQ(e[0], at(6, 12, "queries[0].fasta: file not found: " + (dir.path() / "missing.fa").string()));
  EXPECT_EQ(e[1], at(12, 12, "stages.miranda.scale: must be > 0 and <= 100 (got -1)"));
  EXPECT_EQ(e[2], at(13, 5, "stages.miranda.strickt: unknown key (did you mean 'strict'?)"));
  EXPECT_EQ(e[3], at(15, 20, "stages.bpmax.target_window: must be >= 0 (got -5)"));
  EXPECT_EQ(e[4], at(17, 10, "checkpoint.every: expected a duration with a unit, such as 30s, 5min, 2h or 1h30m, got 'often'"));
}

TEST_F(Validation, YamlSyntaxErrorsNameFileLineAndColumn) {
  auto e = errors(head_with("  nussinov: {min_loop: 3\n  bpmax:\n"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rfind(manifest_path() + ":1", 0), 0u) << e[0];  // on line 1x
  EXPECT_NE(e[0].find(": YAML syntax error: "), std::string::npos) << e[0];
  // A key indented one space less than its siblings: located at that key.
  e = errors(head_with("  nussinov:\n    min_loop: 3\n   max_span: 2\n"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], at(13, 4, "YAML syntax error: end of map not found")) << e[0];
  e = errors("job:\n  name: t\n\tqueries: []\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rfind(manifest_path() + ":3:", 0), 0u) << e[0];
}

TEST_F(Validation, EmptyOrNonMappingManifests) {
  EXPECT_TRUE(has_line(errors(""), manifest_path() + ": the manifest is empty (see configs/demo.yaml for an example)"));
  EXPECT_TRUE(has_line(errors("- a\n- b\n"), at(1, 1, "expected a mapping (key: value lines), got a list")));
  try {
    manifest::load_manifest((dir.path() / "absent.yaml").string());
    FAIL() << "no error for a missing manifest";
  } catch (const ManifestError& err) {
    EXPECT_NE(std::string(err.what()).find("absent.yaml: cannot read the manifest"), std::string::npos) << err.what();
  }
}

TEST_F(Validation, AnOutputPathThatIsAFileIsRejected) {
  dir.write("taken", "x");
  EXPECT_TRUE(has_line(errors(head_replacing(3, "  name: t\n  output: taken") + "  nussinov:\n"),
                       at(4, 11, "job.output: exists and is not a folder: " + (dir.path() / "taken").string())));
}

TEST_F(Validation, TextValuesRefuseControlCharactersAndEachProblemIsOneLine) {
  // YAML double quotes make any byte: newline, tab, CR, NUL, escape, DEL.
  for (const char* bad : {"\\n", "\\t", "\\r", "\\0", "\\e", "\\x7f"}) {
    const std::string value = std::string("\"out") + bad + "put\"";
    const auto e = errors(head_replacing(3, "  name: t\n  output: " + value) + "  nussinov:\n");
    ASSERT_EQ(e.size(), 1u) << bad;
    EXPECT_NE(e[0].find("job.output: 'out"), std::string::npos) << e[0];
    EXPECT_NE(e[0].find("put' contains "), std::string::npos) << e[0];
    EXPECT_NE(e[0].find("control characters are not accepted"), std::string::npos) << e[0];
    EXPECT_EQ(e[0].find_first_of(std::string("\n\t\r\x1b\x7f\0", 6)), std::string::npos) << "not one clean line: " << e[0];
  }
  // The same rule for every text field, a set's fasta path among them.
  EXPECT_TRUE(has_line_with(errors(head_replacing(6, "    fasta: \"q\\n.fa\"") + "  nussinov:\n"),
                            "queries[0].fasta: 'q\\n.fa' contains a newline (\\n)"));
  // A key with a control character is reported, escaped, on one line.
  const auto k = errors(head_with("  \"nuss\\ninov\": true\n"));
  ASSERT_FALSE(k.empty());
  EXPECT_TRUE(has_line_with(k, "stages.nuss\\ninov: unknown key")) << k[0];
}

TEST_F(Validation, NamesAreShortAndTextValuesBounded) {
  const std::string long_name(1 << 20, 'a');
  auto e = errors(head_replacing(3, "  name: " + long_name) + "  nussinov:\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], at(3, 9, "job.name: is 1048576 bytes long; at most 4096 are accepted"));
  e = errors(head_replacing(3, "  name: " + std::string(101, 'j')) + "  nussinov:\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], at(3, 9, "job.name: is 101 characters long; at most 100 are accepted"));
  e = errors(head_replacing(5, "  - name: " + std::string(101, 's')) + "  nussinov:\n");
  EXPECT_TRUE(has_line_with(e, "queries[0].name: is 101 characters long; at most 100 are accepted"));
  EXPECT_TRUE(has_line(errors(head_replacing(3, "  name: ..") + "  nussinov:\n"),
                       at(3, 9, "job.name: '..' is not a usable name")));
  EXPECT_EQ(load(head_replacing(3, "  name: " + std::string(100, 'j')) + "  nussinov:\n").name, std::string(100, 'j'));
}

TEST_F(Validation, ScoreThresholdIsANumber) {
  EXPECT_DOUBLE_EQ(load(head_with("  miranda:\n    score_threshold: 140.5\n")).miranda.score_threshold, 140.5);
  EXPECT_TRUE(has_line(errors(head_with("  miranda:\n    score_threshold: high\n")),
                       at(12, 22, "stages.miranda.score_threshold: expected a number, got 'high'")));
}

TEST_F(Validation, ASecondYamlDocumentIsAnError) {
  const std::string one = std::string(kHead) + "  nussinov:\n";
  const auto e = errors(one + "---\n" + one);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rfind(manifest_path() + ":12:", 0), 0u) << e[0];
  EXPECT_NE(e[0].find("the file holds 2 YAML documents (separated by '---'); a manifest is one document"),
            std::string::npos)
      << e[0];
  // A leading '---' (one document) is fine.
  EXPECT_EQ(load("---\n" + one).name, "t");
}

}  // namespace
}  // namespace screen::testing
