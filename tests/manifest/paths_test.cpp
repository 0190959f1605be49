// Relative paths in a manifest resolve against the manifest's folder.
#include <gtest/gtest.h>

#include <filesystem>

#include "manifest/load_manifest.hpp"
#include "tests/manifest/manifest_fixture.hpp"

namespace screen::testing {
namespace {

namespace fs = std::filesystem;
using Paths = ManifestFixture;

TEST_F(Paths, RelativePathsResolveAgainstTheManifestsFolder) {
  dir.write("data/sets/q.fa", ">q\nACGUACGU\n");
  dir.write("configs/job.yaml",
            "job:\n  name: j\n  output: ../results/j\nqueries:\n  - name: q\n    fasta: ../data/sets/q.fa\n"
            "stages:\n  nussinov:\n");
  const auto job = manifest::load_manifest((dir.path() / "configs" / "job.yaml").string());
  EXPECT_EQ(job.queries[0].fasta, (dir.path() / "data" / "sets" / "q.fa").string());
  EXPECT_EQ(job.queries[0].fasta_as_written, "../data/sets/q.fa");
  EXPECT_EQ(job.output, (dir.path() / "results" / "j").string());
  EXPECT_EQ(job.output_as_written, "../results/j");
}

TEST_F(Paths, AbsolutePathsAreKept) {
  const std::string q = (dir.path() / "q.fa").string();
  dir.write("elsewhere/job.yaml", "job:\n  name: j\n  output: " + (dir.path() / "out").string() +
                                      "\nqueries:\n  - name: q\n    fasta: " + q + "\nstages:\n  nussinov:\n");
  const auto job = manifest::load_manifest((dir.path() / "elsewhere" / "job.yaml").string());
  EXPECT_EQ(job.queries[0].fasta, q);
  EXPECT_EQ(job.output, (dir.path() / "out").string());
}

TEST_F(Paths, ARelativeManifestPathResolvesFromItsOwnFolder) {
  // The tests run from the source tree; the fixture lives three folders down.
  const auto job = manifest::load_manifest("tests/manifest/fixtures/fold_mirnas.yaml");
  EXPECT_EQ(job.queries[0].fasta, (fs::current_path() / "data" / "demo" / "mirnas.fa").string());
  EXPECT_EQ(job.output, (fs::current_path() / "results" / "fold_mirnas").string());
  EXPECT_EQ(job.manifest_path, "tests/manifest/fixtures/fold_mirnas.yaml");
}

TEST_F(Paths, ParseManifestTakesTheBaseFolderFromItsCaller) {
  const std::string text =
      "job:\n  name: j\nqueries:\n  - name: q\n    fasta: sub/../q.fa\nstages:\n  nussinov:\n";
  const auto job = manifest::parse_manifest(text, "inline.yaml", dir.path().string());
  EXPECT_EQ(job.queries[0].fasta, (dir.path() / "q.fa").string());
  EXPECT_EQ(job.output, (dir.path() / "results" / "j").string());
  EXPECT_EQ(job.manifest_path, "inline.yaml");
}

}  // namespace
}  // namespace screen::testing
