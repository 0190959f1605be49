// The shipped configs validate (the transcriptome of the flagship job is generated, not shipped:
// without it the only problem is that file, and with a small stand-in in its place the job is valid).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "common/error.hpp"
#include "manifest/describe.hpp"
#include "manifest/load_manifest.hpp"
#include "tests/manifest/temp_dir.hpp"

namespace screen::testing {
namespace {

namespace fs = std::filesystem;
using manifest::StageKind;

const std::vector<StageKind> kAllStages = {StageKind::nussinov, StageKind::miranda, StageKind::bpmax};

TEST(Configs, DemoValidatesWithAllThreeStages) {
  const auto job = manifest::load_manifest("configs/demo.yaml");
  EXPECT_EQ(job.name, "demo");
  EXPECT_EQ(job.output, (fs::current_path() / "results" / "demo").string());
  EXPECT_EQ(job.stage_order, kAllStages);
  ASSERT_EQ(job.queries.size(), 1u);
  EXPECT_EQ(job.queries[0].fasta, (fs::current_path() / "data" / "demo" / "mirnas.fa").string());
  ASSERT_EQ(job.targets.size(), 2u);
  EXPECT_EQ(job.targets[0].fasta, (fs::current_path() / "data" / "demo" / "hairpins.fa").string());
  EXPECT_EQ(job.targets[1].fasta, (fs::current_path() / "data" / "demo" / "sarscov2_26904-29903.fa").string());
  EXPECT_EQ(job.bpmax.target_window, 64);
  EXPECT_EQ(job.bpmax.query_window, 0);
  // The other parameters are the specs' defaults.
  EXPECT_EQ(job.nussinov.min_loop, 3);
  EXPECT_EQ(job.miranda.score_threshold, 140);
  EXPECT_EQ(job.bpmax.pairs.cg, 3);
  EXPECT_EQ(job.bpmax.pairs.au, 2);
  EXPECT_EQ(job.bpmax.pairs.gu, 1);
  EXPECT_FALSE(job.cluster.present);

  const std::string summary = manifest::describe_job(job);
  EXPECT_NE(summary.find("1. nussinov"), std::string::npos) << summary;
  EXPECT_NE(summary.find("2. miranda"), std::string::npos) << summary;
  EXPECT_NE(summary.find("3. bpmax     query_window 0 (whole strand), target_window 64, pairs AU 2 CG 3 GU 1"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("mirnas: " + job.queries[0].fasta), std::string::npos) << summary;
}

void expect_flagship(const manifest::Job& job) {
  EXPECT_EQ(job.name, "svrna_vs_transcriptome");
  EXPECT_EQ(job.stage_order, kAllStages);
  EXPECT_EQ(job.bpmax.target_window, 128);
  EXPECT_EQ(job.targets[0].min_length, 20u);
  EXPECT_EQ(job.targets[0].max_length, 250000u);
  EXPECT_TRUE(job.cluster.present);
  EXPECT_EQ(job.cluster.partition, "gpu");
  EXPECT_EQ(job.cluster.time_limit_seconds, 86400);
  EXPECT_EQ(job.cluster.max_concurrent, 16);
  EXPECT_EQ(job.cluster.extra_sbatch, std::vector<std::string>{"--account=rna"});
  EXPECT_EQ(job.checkpoint.every_seconds, 300);
}

TEST(Configs, FlagshipValidatesOrNamesOnlyTheUngeneratedTranscriptome) {
  const std::string generated = (fs::current_path() / "data/generated/human_transcripts.fa.gz").string();
  if (fs::exists(generated)) {
    expect_flagship(manifest::load_manifest("configs/svrna_vs_transcriptome.yaml"));
    return;
  }
  try {
    manifest::load_manifest("configs/svrna_vs_transcriptome.yaml");
    FAIL() << "validated without " << generated;
  } catch (const ManifestError& e) {
    const std::string expected = "configs/svrna_vs_transcriptome.yaml:";
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(expected, 0), 0u) << what;
    EXPECT_NE(what.find(": targets[0].fasta: file not found: " + generated), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << "more than one problem:\n" << what;
  }
}

TEST(Configs, FlagshipValidatesWithASmallGeneratedStandIn) {
  // The config's own text, in a copy of its folder layout, with 20 generated transcripts.
  TempDir dir;
  const std::string text = read_text("configs/svrna_vs_transcriptome.yaml");
  dir.write("data/svrna/sarscov2_svrna.fa", read_text("data/svrna/sarscov2_svrna.fa"));
  const std::string out = (dir.path() / "data/generated/human_transcripts.fa.gz").string();
  const std::string cmd = std::string("'") + MAKE_TRANSCRIPTOME_EXE + "' --count 20 --max-length 3000 --output '" + out +
                          "' 2>/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const auto job = manifest::parse_manifest(text, "svrna_vs_transcriptome.yaml", (dir.path() / "configs").string());
  expect_flagship(job);
  EXPECT_EQ(job.targets[0].fasta, out);
  EXPECT_EQ(job.queries[0].fasta, (dir.path() / "data/svrna/sarscov2_svrna.fa").string());
}

TEST(Configs, SvrnaQueriesAreThe18_22And23NtGenomeSlicesTheirHeadersName) {
  // Each header names NC_045512.2:start-end; the sequence must be exactly that slice of the genome.
  const std::string genome_fa = read_text("data/sarscov2_NC_045512.2.fa");
  std::string genome;
  for (std::size_t line_end, pos = genome_fa.find('\n') + 1; pos < genome_fa.size(); pos = line_end + 1) {
    line_end = genome_fa.find('\n', pos);
    if (line_end == std::string::npos) line_end = genome_fa.size();
    genome += genome_fa.substr(pos, line_end - pos);
  }
  ASSERT_EQ(genome.size(), 29903u);
  const std::string svrna = read_text("data/svrna/sarscov2_svrna.fa");
  std::vector<std::size_t> lengths;
  for (std::size_t pos = 0; (pos = svrna.find("NC_045512.2:", pos)) != std::string::npos;) {
    const std::size_t start = std::stoul(svrna.substr(pos + 12));
    const std::size_t dash = svrna.find('-', pos);
    const std::size_t end = std::stoul(svrna.substr(dash + 1));
    const std::size_t seq_start = svrna.find('\n', pos) + 1;
    const std::string seq = svrna.substr(seq_start, svrna.find('\n', seq_start) - seq_start);
    EXPECT_EQ(seq, genome.substr(start - 1, end - start + 1)) << "at " << start;
    lengths.push_back(seq.size());
    pos = seq_start;
  }
  EXPECT_EQ(lengths, (std::vector<std::size_t>{18, 22, 23}));
}

}  // namespace
}  // namespace screen::testing
