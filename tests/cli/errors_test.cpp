// Inputs that must not fool `screen`: unknown subcommands (exit 2, named, with a suggestion and the
// list), and `fold` / `interact` records whose tables exceed this machine's memory (exit 6, refused
// before anything is allocated, naming the record, its length, the memory needed and the RAM).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/memory.hpp"
#include "tests/cli/run_screen.hpp"
#include "tests/support/test_folder.hpp"

namespace screen::testing {
namespace {

bool has(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

TEST(CliErrors, UnknownSubcommandIsNamedWithTheCommandList) {
  auto r = run_screen({"frobnicate"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "unknown command 'frobnicate'")) << r.out;
  EXPECT_FALSE(has(r.out, "A subcommand is required")) << r.out;
  for (const char* sub : {"run", "status", "merge", "export", "fold", "interact", "align", "bench"})
    EXPECT_TRUE(has(r.out, sub)) << sub << ": " << r.out;
  EXPECT_FALSE(has(r.out, "did you mean")) << r.out;  // nothing is close to it

  r = run_screen({"-q", "exprot", "out"});  // global flags before it are skipped
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "unknown command 'exprot'")) << r.out;
  EXPECT_TRUE(has(r.out, "did you mean 'export'?")) << r.out;
}

TEST(CliErrors, UnknownBenchSubcommandIsNamedWithTheBenchList) {
  auto r = run_screen({"bench", "nusinov"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "unknown command 'nusinov' for `screen bench`")) << r.out;
  EXPECT_TRUE(has(r.out, "did you mean 'nussinov'?")) << r.out;
  for (const char* sub : {"fasta", "nussinov", "miranda", "bpmax"}) EXPECT_TRUE(has(r.out, sub)) << sub << ": " << r.out;
  r = run_screen({"bench", "frobnicate"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "unknown command 'frobnicate' for `screen bench`")) << r.out;
  // Known subcommands still parse (a missing required option is CLI11's usage error, not ours).
  r = run_screen({"bench", "nussinov", "--help"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

class Folder : public testing_support::TestFolder {
 public:
  Folder() : TestFolder("screen-cli-errors") {}
};

std::string write_fasta(const Folder& dir, const std::string& name, const std::string& record, std::size_t length) {
  const std::string path = dir.file(name);
  std::ofstream out(path, std::ios::binary);
  out << ">" << record << "\n";
  const std::string line(1000, 'A');
  for (std::size_t done = 0; done < length; done += line.size())
    out << line.substr(0, std::min(line.size(), length - done)) << "\n";
  return path;
}

// The length whose Nussinov table (>= 2 bytes a cell, n^2 cells) needs at least 4x this machine's RAM.
std::size_t too_long_to_fold() {
  const double ram = static_cast<double>(physical_memory_bytes());
  return std::max<std::size_t>(100000, static_cast<std::size_t>(2 * std::sqrt(ram)) + 1);
}

TEST(CliErrors, FoldRefusesARecordWhoseTablesExceedMemory) {
  ASSERT_GT(physical_memory_bytes(), 0u);
  Folder dir;
  const std::size_t n = too_long_to_fold();
  const std::string fa = write_fasta(dir, "long.fa", "chr_huge", n);
  for (const char* method : {"auto", "reference"}) {
    const auto r = run_screen({"-q", "fold", fa, "--device", "cpu", "--method", method, "--out", dir.file("out.tsv")});
    EXPECT_EQ(r.exit_code, 6) << method << ": " << r.out;
    EXPECT_TRUE(has(r.out, "record 'chr_huge' (" + std::to_string(n) + " nt)")) << r.out;
    EXPECT_TRUE(has(r.out, "needs ")) << r.out;
    EXPECT_TRUE(has(r.out, "of RAM")) << r.out;
    EXPECT_TRUE(has(r.out, human_bytes(physical_memory_bytes()))) << r.out;
    EXPECT_FALSE(has(r.out, "internal error")) << r.out;
    EXPECT_FALSE(std::filesystem::exists(dir.file("out.tsv")));
  }
}

TEST(CliErrors, InteractRefusesAPairWhoseTablesExceedMemory) {
  Folder dir;
  // BPMax without windows: about n^2 m^2 cells; 3000 x 3000 nt is tens of TiB.
  const std::string q = write_fasta(dir, "q.fa", "longq", 3000);
  const std::string t = write_fasta(dir, "t.fa", "longt", 3000);
  const auto r = run_screen({"-q", "interact", q, t, "--device", "cpu"});
  EXPECT_EQ(r.exit_code, 6) << r.out;
  EXPECT_TRUE(has(r.out, "pair 'longq' (3000 nt) x 'longt' (3000 nt) needs ")) << r.out;
  EXPECT_TRUE(has(r.out, "TiB")) << r.out;
  EXPECT_TRUE(has(r.out, "of RAM")) << r.out;
}

TEST(CliErrors, HumanBytes) {
  EXPECT_EQ(human_bytes(512), "512 B");
  EXPECT_EQ(human_bytes(1536), "1.5 KiB");
  EXPECT_EQ(human_bytes(std::uint64_t{1} << 30), "1 GiB");
  EXPECT_EQ(human_bytes(std::uint64_t{11} << 50), "11 PiB");
}

}  // namespace
}  // namespace screen::testing
