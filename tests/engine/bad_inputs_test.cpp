// Inputs that must not run as if they were fine: `screen run`, `plan` and `validate` read a job's
// FASTA files with one reader (engine::load_inputs) and refuse invalid records, sets left empty,
// plans with nothing to do, non-regular files (a FIFO never blocks them) and manifests with more
// than one YAML document, each with a message naming the file and exit 4 (inputs) or 3 (manifest).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>

#include <fstream>
#include <string>
#include <vector>

#include "engine_test_util.hpp"

namespace screen::engine::testing {
namespace {

// Both streams, under a time limit: a command that blocks fails the test instead of hanging it.
CommandResult screen_all(const std::string& args) {
  return run_shell("timeout 60 " + std::string(SCREEN_EXE) + " " + args + " 2>&1");
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string gzip_bytes(const std::string& text) {
  std::vector<unsigned char> out(compressBound(static_cast<uLong>(text.size())) + 64);
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = out.data();
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  const std::size_t n = zs.total_out;
  deflateEnd(&zs);
  return std::string(reinterpret_cast<const char*>(out.data()), n);
}

// The engine tests' job with its target file replaced by `targets` (written as targets.fa).
std::string job_with_targets(const TempDir& dir, const std::string& targets) {
  const std::string manifest = write_job(dir, 2);
  spit(dir.file("targets.fa"), targets);
  return manifest;
}

struct BadSet {
  const char* what;
  std::string content;
  std::string expected;  // part of the message
};

std::vector<BadSet> bad_sets() {
  const std::string good = ">t1\nACGUACGUACGUACGUACGUACGUACGUACGU\n";
  return {
      {"empty file", "", "targets.fa: no records: the file is empty"},
      {"binary", std::string("\x7f" "ELF\x02\x01\x01\0\0\0\0", 12) + std::string(200, '\0'), "targets.fa"},
      {"truncated gzip", gzip_bytes(good + good.substr(0, 1) + "t2\nACGU\n").substr(0, 20), "invalid gzip data"},
      {"invalid letter", good + ">t2\nACGUJACGU\n", "targets.fa:4:5: invalid character 'J'"},
      {"all records invalid", ">t1\nACGU-ACGU\n>t2\nAC*GU\n", "targets.fa:2:5: invalid character '-'"},
      {"duplicate name", good + good, "targets.fa:3:2: duplicate record name 't1' (first at line 1)"},
      {"empty record", good + ">t2\n>t3\nACGUACGU\n", "empty record 't2'"},
  };
}

TEST(BadInputs, RunPlanAndValidateRefuseInvalidSetsWithTheReadersMessage) {
  for (const auto& b : bad_sets()) {
    TempDir dir;
    const std::string manifest = job_with_targets(dir, b.content);
    for (const char* cmd : {"validate", "plan", "run"}) {
      const CommandResult r = screen_all(std::string(cmd) + " " + manifest);
      EXPECT_EQ(r.code, 4) << b.what << ", " << cmd << ":\n" << r.out;
      EXPECT_TRUE(contains(r.out, b.expected)) << b.what << ", " << cmd << ": expected '" << b.expected << "' in\n"
                                               << r.out;
      EXPECT_FALSE(contains(r.out, "valid\n")) << r.out;
    }
    EXPECT_FALSE(fs::exists(dir.file("out"))) << b.what << ": the refused run left an output folder";
  }
}

TEST(BadInputs, ASetWithNoRecordLeftAfterTheLengthLimitsIsAnError) {
  TempDir dir;
  const std::string manifest = job_with_targets(dir, ">t1\nACGUACGU\n>t2\nACGUAC\n");
  std::string text = engine::testing::run_shell("cat " + manifest).out;
  text.replace(text.find("fasta: targets.fa\n"), 18, "fasta: targets.fa\n    min_length: 10\n");
  spit(manifest, text);
  for (const char* cmd : {"validate", "plan", "run"}) {
    const CommandResult r = screen_all(std::string(cmd) + " " + manifest);
    EXPECT_EQ(r.code, 4) << cmd << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "target set 'utrs'")) << r.out;
    EXPECT_TRUE(contains(r.out, "none of its 2 records is left to screen (2 shorter than min_length 10)")) << r.out;
  }
  EXPECT_FALSE(fs::exists(dir.file("out/results.h5")));
}

TEST(BadInputs, APlanWithEveryUnitOverTheMemoryLimitIsAnError) {
  TempDir dir;
  const std::string manifest = write_job(dir, 1);
  std::string text = engine::testing::run_shell("cat " + manifest).out;
  text.replace(text.find("resources:\n"), 11, "resources:\n  max_unit_memory: 1\n");
  spit(manifest, text);
  for (const char* cmd : {"validate", "plan", "run"}) {
    const CommandResult r = screen_all(std::string(cmd) + " " + manifest);
    EXPECT_EQ(r.code, 4) << cmd << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "nothing to screen: all")) << cmd << ": " << r.out;
  }
  EXPECT_EQ(screen_all("plan " + manifest + " --count").code, 4);
  EXPECT_FALSE(fs::exists(dir.file("out/results.h5")));
}

TEST(BadInputs, ValidateReportsWhatItReadAndAcceptsAGoodJob) {
  TempDir dir;
  const std::string manifest = write_job(dir, 2);
  const CommandResult r = screen_all("validate " + manifest);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "inputs: 5 queries (")) << r.out;
  EXPECT_TRUE(contains(r.out, "4 targets (")) << r.out;
  EXPECT_TRUE(contains(r.out, "1 records skipped for their length")) << r.out;
  EXPECT_TRUE(contains(r.out, ": valid\n")) << r.out;
}

TEST(BadInputs, FifosAreRefusedWithoutBlocking) {
  TempDir dir;
  const std::string manifest = write_job(dir, 1);
  const std::string fifo = dir.file("pipe.fa");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string text = engine::testing::run_shell("cat " + manifest).out;
  text.replace(text.find("fasta: targets.fa"), 17, "fasta: pipe.fa");
  spit(manifest, text);
  // No writer ever opens the FIFO: each command must answer at once (timeout gives 124).
  for (const std::string& args : {"validate " + manifest, "run " + manifest, "plan " + manifest}) {
    const CommandResult r = screen_all(args);
    EXPECT_EQ(r.code, 3) << args << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "pipe.fa is a FIFO (named pipe), not a regular file")) << args << ": " << r.out;
  }
  for (const std::string& args : {"fold " + fifo, "align " + dir.file("queries.fa") + " " + fifo,
                                  "interact " + fifo + " " + dir.file("targets.fa")}) {
    const CommandResult r = screen_all(args);
    EXPECT_EQ(r.code, 4) << args << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "pipe.fa: is a FIFO (named pipe), not a regular file")) << args << ": " << r.out;
  }
  // The manifest itself as a FIFO.
  const std::string fifo_manifest = dir.file("job-pipe.yaml");
  ASSERT_EQ(::mkfifo(fifo_manifest.c_str(), 0600), 0);
  const CommandResult r = screen_all("validate " + fifo_manifest);
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_TRUE(contains(r.out, "the manifest is a FIFO")) << r.out;
}

TEST(BadInputs, AManifestWithSeveralYamlDocumentsIsRefused) {
  TempDir dir;
  const std::string manifest = write_job(dir, 1);
  const std::string text = engine::testing::run_shell("cat " + manifest).out;
  spit(manifest, text + "---\n" + text);
  const CommandResult r = screen_all("validate " + manifest);
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_TRUE(contains(r.out, "the file holds 2 YAML documents")) << r.out;
  EXPECT_EQ(screen_all("run " + manifest).code, 3);
}

}  // namespace
}  // namespace screen::engine::testing
