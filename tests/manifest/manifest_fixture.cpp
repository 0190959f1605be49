#include "tests/manifest/manifest_fixture.hpp"

#include <sstream>

#include "common/error.hpp"
#include "manifest/load_manifest.hpp"

namespace screen::testing {

const char* const kHead =
    "version: 1\n"
    "job:\n"
    "  name: t\n"
    "queries:\n"
    "  - name: q\n"
    "    fasta: q.fa\n"
    "targets:\n"
    "  - name: t\n"
    "    fasta: t.fa\n"
    "stages:\n";

ManifestFixture::ManifestFixture() {
  dir.write("q.fa", ">q1\nUGAGGUAGUAGGUUGUAUAGUU\n");
  dir.write("t.fa", ">t1\nAACUAUACAACCUACUACCUCAGG\n");
}

std::string ManifestFixture::manifest_path() const { return (dir.path() / "job.yaml").string(); }

manifest::Job ManifestFixture::load(const std::string& yaml) {
  dir.write("job.yaml", yaml);
  return manifest::load_manifest(manifest_path());
}

std::vector<std::string> ManifestFixture::errors(const std::string& yaml) {
  dir.write("job.yaml", yaml);
  try {
    manifest::load_manifest(manifest_path());
  } catch (const ManifestError& e) {
    EXPECT_EQ(e.code(), ExitCode::manifest);
    std::vector<std::string> lines;
    std::istringstream in(e.what());
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }
  ADD_FAILURE() << "expected a ManifestError for:\n" << yaml;
  return {};
}

std::string ManifestFixture::at(int line, int column, const std::string& rest) const {
  return manifest_path() + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + rest;
}

namespace {
std::string all(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "  " + l + "\n";
  return out;
}
}  // namespace

::testing::AssertionResult has_line(const std::vector<std::string>& lines, const std::string& line) {
  for (const auto& l : lines)
    if (l == line) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "no line\n  " << line << "\namong\n" << all(lines);
}

::testing::AssertionResult has_line_with(const std::vector<std::string>& lines, const std::string& part) {
  for (const auto& l : lines)
    if (l.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "no line containing\n  " << part << "\namong\n" << all(lines);
}

}  // namespace screen::testing
