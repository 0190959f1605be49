// Resource guards: `screen run` on a full disk (a file-size limit, RLIMIT_FSIZE, with SIGXFSZ ignored
// so writes fail with EFBIG) and with an output folder that cannot be created. Each must exit with
// code 6 and a message naming the file, record nothing that does not verify, leave no temporary file,
// and a following run without the fault must give the results of an uninterrupted run.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "engine_test_util.hpp"
#include "store/journal.hpp"
#include "store/part_file.hpp"

namespace screen::engine::testing {
namespace {

struct Outcome {
  int status = 0;
  std::string err;  // the child's stderr
};

// Runs the built `screen` with `args`; with fsize_limit > 0, under that file-size limit.
// stderr comes back through a pipe, which the limit does not apply to.
Outcome run_screen(const std::vector<std::string>& args, rlim_t fsize_limit = 0) {
  int fds[2];
  if (::pipe(fds) != 0) ADD_FAILURE() << "pipe failed";
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>("screen"));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(fds[1], 2);
    if (fsize_limit > 0) {
      ::signal(SIGXFSZ, SIG_IGN);
      const struct rlimit rl{fsize_limit, fsize_limit};
      if (::setrlimit(RLIMIT_FSIZE, &rl) != 0) ::_exit(126);
    }
    ::execv(SCREEN_EXE, argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  Outcome o;
  char buf[4096];
  while (true) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    o.err.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  while (::waitpid(pid, &o.status, 0) < 0 && errno == EINTR) {
  }
  return o;
}

int exit_code(const Outcome& o) { return WIFEXITED(o.status) ? WEXITSTATUS(o.status) : -1; }

std::vector<std::string> temporaries(const std::string& folder) {
  std::vector<std::string> v;
  if (!fs::exists(folder)) return v;
  for (const auto& e : fs::directory_iterator(folder))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) v.push_back(e.path().string());
  return v;
}

std::uintmax_t largest_part(const std::string& folder) {
  std::uintmax_t m = 0;
  for (const auto& e : fs::directory_iterator(folder))
    if (e.path().filename().string().rfind("part-", 0) == 0) m = std::max(m, fs::file_size(e.path()));
  return m;
}

// Every journal line names a part that exists and verifies (checksum equal to the journal's).
void expect_journal_trustworthy(const manifest::Job& job, const std::string& output, std::size_t& entries) {
  const auto journal = store::read_journal(output + "/journal");
  EXPECT_FALSE(journal.torn_tail);
  entries = journal.entries.size();
  const Inputs in = load_inputs(job);
  for (const auto& e : journal.entries) {
    const store::PartCheck c = store::PartReader::verify(output + "/" + e.part_file, job.results_sha256,
                                                         in.input_sha256());
    EXPECT_TRUE(c.ok()) << e.part_file << ": " << c.reason;
    EXPECT_EQ(c.checksum, e.checksum) << e.part_file;
  }
}

struct Fixture {
  manifest::Job job;
  std::string manifest;
  store::StageRows reference;
  std::uintmax_t part_size = 0, results_size = 0;
};

// A 6-shard job and its uninterrupted run in <dir>/reference.
Fixture make_fixture(const TempDir& dir) {
  Fixture f;
  f.manifest = write_job(dir, 6, 11);
  f.job = manifest::load_manifest(f.manifest);
  manifest::Job ref = f.job;
  ref.output = dir.file("reference");
  RunOptions o;
  o.threads = 1;
  o.progress_interval = 1e9;
  run_job(ref, o);
  f.reference = store::ResultsReader(ref.output + "/results.h5").stage_rows();
  f.part_size = largest_part(ref.output);
  f.results_size = fs::file_size(ref.output + "/results.h5");
  return f;
}

void resume_and_compare(const Fixture& f) {
  const Outcome o = run_screen({"run", "-q", f.manifest, "--threads", "1"});
  ASSERT_EQ(exit_code(o), 0) << o.err;
  expect_stage_rows_equal(store::ResultsReader(f.job.output + "/results.h5").stage_rows(), f.reference);
  EXPECT_EQ(job_status(f.job.output).shards_done, 6u);
  EXPECT_TRUE(temporaries(f.job.output).empty());
}

TEST(FullDisk, PartFileCannotBeWrittenExits6AndResumes) {
  TempDir dir;
  const Fixture f = make_fixture(dir);
  // Room for run.info and the journal, not for a part (the smallest part is well over this).
  const rlim_t limit = 2048;
  ASSERT_GT(f.part_size, 2 * limit);
  const Outcome o = run_screen({"run", "-q", f.manifest, "--threads", "1"}, limit);
  EXPECT_EQ(exit_code(o), 6) << o.err;
  EXPECT_NE(o.err.find(f.job.output + "/part-000000.h5"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("too large"), std::string::npos) << o.err;  // strerror(EFBIG)
  std::size_t entries = 99;
  expect_journal_trustworthy(f.job, f.job.output, entries);
  EXPECT_EQ(entries, 0u);
  EXPECT_TRUE(temporaries(f.job.output).empty()) << temporaries(f.job.output)[0];
  EXPECT_FALSE(fs::exists(f.job.output + "/results.h5"));
  resume_and_compare(f);
}

TEST(FullDisk, ResultsFileCannotBeWrittenExits6AndResumes) {
  TempDir dir;
  const Fixture f = make_fixture(dir);
  // Room for every part, not for results.h5.
  ASSERT_LT(f.part_size + 4096, f.results_size);
  const rlim_t limit = static_cast<rlim_t>(f.part_size + (f.results_size - f.part_size) / 2);
  const Outcome o = run_screen({"run", "-q", f.manifest, "--threads", "1"}, limit);
  EXPECT_EQ(exit_code(o), 6) << o.err;
  EXPECT_NE(o.err.find(f.job.output + "/results.h5"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("too large"), std::string::npos) << o.err;
  std::size_t entries = 0;
  expect_journal_trustworthy(f.job, f.job.output, entries);
  EXPECT_EQ(entries, 6u);  // every shard done and recorded; only the merge failed
  EXPECT_TRUE(temporaries(f.job.output).empty()) << temporaries(f.job.output)[0];
  EXPECT_FALSE(fs::exists(f.job.output + "/results.h5"));
  resume_and_compare(f);
}

// `ulimit -f` in a shell, as a user would set it: SIGXFSZ is not ignored there, so `screen` itself
// must ignore it to report the failed write (EFBIG) instead of dying without a word. dash counts
// the limit in 512-byte blocks, bash in 1024: 4 blocks is 2 or 4 KiB.
CommandResult under_ulimit(const std::string& args) {
  return run_shell("ulimit -f 4 && exec " + std::string(SCREEN_EXE) + " " + args + " 2>&1 >/dev/null");
}

TEST(FullDisk, UlimitInAShellExits6WithAMessageAndResumes) {
  TempDir dir;
  const Fixture f = make_fixture(dir);
  ASSERT_GT(f.part_size, 2u * 4096u);
  const CommandResult r = under_ulimit("run -q " + f.manifest + " --threads 1");
  EXPECT_EQ(r.code, 6) << r.out;  // not killed by SIGXFSZ (run_shell gives -1 for a signal)
  EXPECT_NE(r.out.find("screen: error: " + f.job.output + "/part-000000.h5"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("File too large"), std::string::npos) << r.out;
  std::size_t entries = 99;
  expect_journal_trustworthy(f.job, f.job.output, entries);
  EXPECT_EQ(entries, 0u);
  EXPECT_TRUE(temporaries(f.job.output).empty());
  resume_and_compare(f);
}

TEST(FullDisk, UlimitOnFoldOutExits6AndLeavesNoPartialFile) {
  TempDir dir;
  std::mt19937_64 rng(5);
  std::string fa;
  for (int i = 0; i < 200; ++i) fa += ">r" + std::to_string(i) + "\n" + random_rna(rng, 60) + "\n";
  spit(dir.file("in.fa"), fa);  // about 40 KB of TSV out, far over the limit
  const std::string out = dir.file("folded.tsv");
  const CommandResult r = under_ulimit("fold -q " + dir.file("in.fa") + " --device cpu --out " + out);
  EXPECT_EQ(r.code, 6) << r.out;
  EXPECT_NE(r.out.find("screen: error: " + out + ": write failed: File too large"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_TRUE(temporaries(dir.path().string()).empty());
  const CommandResult again = run_shell(std::string(SCREEN_EXE) + " fold -q " + dir.file("in.fa") +
                                        " --device cpu --out " + out + " 2>&1");
  EXPECT_EQ(again.code, 0) << again.out;
  std::ifstream in(out);
  std::string line;
  std::size_t rows = 0;
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, 201u);  // header and one row per record
}

// job.yaml with `output:` replaced.
std::string with_output(const TempDir& dir, const std::string& output) {
  const std::string manifest = write_job(dir, 2, 5);
  std::ostringstream text;
  text << std::ifstream(manifest).rdbuf();
  std::string yaml = text.str();
  const auto at = yaml.find("output: out\n");
  EXPECT_NE(at, std::string::npos);
  yaml.replace(at, 12, "output: " + output + "\n");
  spit(manifest, yaml);
  return manifest;
}

TEST(UnwritableOutput, OutputUnderARegularFileExits6NamingThePath) {
  TempDir dir;
  spit(dir.file("plain"), "not a folder\n");
  const std::string output = dir.file("plain") + "/out";
  const std::string manifest = with_output(dir, output);
  const Outcome o = run_screen({"run", "-q", manifest, "--threads", "1"});
  EXPECT_EQ(exit_code(o), 6) << o.err;
  EXPECT_NE(o.err.find(output), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("Not a directory"), std::string::npos) << o.err;
}

TEST(UnwritableOutput, OutputInAReadOnlyFolderExits6NamingThePath) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores folder permissions (the test above covers root)";
  TempDir dir;
  fs::create_directories(dir.file("ro"));
  ASSERT_EQ(::chmod(dir.file("ro").c_str(), 0555), 0);
  const std::string output = dir.file("ro") + "/out";
  const std::string manifest = with_output(dir, output);
  const Outcome o = run_screen({"run", "-q", manifest, "--threads", "1"});
  ::chmod(dir.file("ro").c_str(), 0755);
  EXPECT_EQ(exit_code(o), 6) << o.err;
  EXPECT_NE(o.err.find(output), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(output));
}

TEST(UnwritableOutput, ReadOnlyOutputFolderExits6NamingThePath) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores folder permissions";
  TempDir dir;
  const std::string output = dir.file("out");
  fs::create_directories(output);
  ASSERT_EQ(::chmod(output.c_str(), 0555), 0);
  const std::string manifest = with_output(dir, output);
  const Outcome o = run_screen({"run", "-q", manifest, "--threads", "1"});
  ::chmod(output.c_str(), 0755);
  EXPECT_EQ(exit_code(o), 6) << o.err;
  EXPECT_NE(o.err.find(output + "/"), std::string::npos) << o.err;
}

}  // namespace
}  // namespace screen::engine::testing
