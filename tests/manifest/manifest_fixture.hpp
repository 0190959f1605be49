#pragma once
// A temporary folder holding q.fa and t.fa, and helpers to load manifests written into it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "manifest/job.hpp"
#include "tests/manifest/temp_dir.hpp"

namespace screen::testing {

// Lines 1-10 of a valid manifest, ending with "stages:" on line 10, so a test's stage lines start
// on line 11:
//   version: 1 / job: name: t / queries: q -> q.fa / targets: t -> t.fa / stages:
extern const char* const kHead;

class ManifestFixture : public ::testing::Test {
 protected:
  ManifestFixture();

  // Writes `yaml` to <dir>/job.yaml and loads it with load_manifest.
  manifest::Job load(const std::string& yaml);
  // The same, expecting a ManifestError: its lines (a failed test if none is thrown).
  std::vector<std::string> errors(const std::string& yaml);
  // "<dir>/job.yaml:line:column: rest"
  std::string at(int line, int column, const std::string& rest) const;
  std::string manifest_path() const;

  TempDir dir;
};

// True when some line of `lines` equals `line`; prints all lines otherwise.
::testing::AssertionResult has_line(const std::vector<std::string>& lines, const std::string& line);
// True when some line of `lines` contains `part`.
::testing::AssertionResult has_line_with(const std::vector<std::string>& lines, const std::string& part);

}  // namespace screen::testing
