#pragma once
// A small job in a fresh folder: queries (one too short, skipped), targets with planted miRNA sites,
// all three stages; helpers to read a results file's stage rows, to run the engine quietly and to
// run the built `screen` (where SCREEN_EXE is defined).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "tests/support/test_folder.hpp"
#include "common/error.hpp"
#include "engine/engine.hpp"
#include "manifest/load_manifest.hpp"
#include "store/results_reader.hpp"

namespace screen::engine::testing {

namespace fs = std::filesystem;

class TempDir : public testing_support::TestFolder {
 public:
  TempDir() : TestFolder("screen-engine") {}
};

inline void spit(const std::string& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

inline std::string random_rna(std::mt19937_64& rng, std::size_t n) {
  std::string s(n, 'A');
  for (auto& c : s) c = "ACGU"[rng() % 4];
  return s;
}

inline std::string reverse_complement(const std::string& s) {
  std::string r(s.rbegin(), s.rend());
  for (auto& c : r) c = c == 'A' ? 'U' : c == 'U' ? 'A' : c == 'C' ? 'G' : 'C';
  return r;
}

// Writes queries.fa, targets.fa and job.yaml (output: out, `shards` shards) into dir.
inline std::string write_job(const TempDir& dir, int shards = 1, std::uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> q;
  std::string qfa, tfa;
  for (int i = 0; i < 5; ++i) {
    q.push_back(random_rna(rng, 20 + rng() % 4));
    qfa += ">q" + std::to_string(i) + "\n" + q.back() + "\n";
    if (i == 2) qfa += ">tooshort\nACGUACGU\n";
  }
  for (int i = 0; i < 4; ++i) {
    std::string t = random_rna(rng, 30 + rng() % 40) + reverse_complement(q[static_cast<std::size_t>(i)]) +
                    random_rna(rng, 30 + rng() % 50);
    tfa += ">t" + std::to_string(i) + " target " + std::to_string(i) + "\n" + t + "\n";
  }
  spit(dir.file("queries.fa"), qfa);
  spit(dir.file("targets.fa"), tfa);
  const std::string yaml = "version: 1\njob:\n  name: small\n  output: out\n"
                           "queries:\n  - name: mirs\n    fasta: queries.fa\n    min_length: 15\n"
                           "targets:\n  - name: utrs\n    fasta: targets.fa\n"
                           "stages:\n  nussinov:\n    traceback: true\n"
                           "  miranda:\n    score_threshold: 120\n"
                           "  bpmax:\n    target_window: 24\n    traceback: all\n"
                           "resources:\n  devices: cpu\n  cpu_threads: 2\n"
                           "sharding:\n  shards: " +
                           std::to_string(shards) + "\n";
  spit(dir.file("job.yaml"), yaml);
  return dir.file("job.yaml");
}

template <class Row>
void expect_rows_equal(const std::vector<Row>& a, const std::vector<Row>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_TRUE(store::rows_equal(a[i], b[i])) << what << " row " << i << ": " << store::describe(a[i]) << " vs "
                                               << store::describe(b[i]);
}

inline void expect_stage_rows_equal(const store::StageRows& a, const store::StageRows& b) {
  expect_rows_equal(a.nussinov_queries, b.nussinov_queries, "nussinov/queries");
  expect_rows_equal(a.nussinov_targets, b.nussinov_targets, "nussinov/targets");
  expect_rows_equal(a.miranda_hits, b.miranda_hits, "miranda/hits");
  expect_rows_equal(a.miranda_pairs, b.miranda_pairs, "miranda/pairs");
  expect_rows_equal(a.bpmax_scores, b.bpmax_scores, "bpmax/scores");
  expect_rows_equal(a.bpmax_structures, b.bpmax_structures, "bpmax/structures");
}

// Options for run_job in a test: `threads` CPU threads, `shards` (0: the manifest's), no progress lines.
inline RunOptions quiet_options(int threads, int shards = 0) {
  RunOptions o;
  o.threads = threads;
  o.shards = shards;
  o.progress_interval = 1e9;
  return o;
}

// run_job with a stop request in `o` must end in an Error with exit code `code`.
inline void expect_stopped(const manifest::Job& job, const RunOptions& o, ExitCode code) {
  try {
    run_job(job, o);
    FAIL() << "no stop";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code);
  }
}

struct CommandResult {
  int code = -1;
  std::string out;  // what the command wrote to its standard output
};

// Runs `command` through the shell (redirections included) and captures its standard output.
inline CommandResult run_shell(const std::string& command) {
  CommandResult r;
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

#ifdef SCREEN_EXE
// Starts `screen run -q MANIFEST --threads 1` in a child process, its output discarded.
inline pid_t start_screen_run(const std::string& manifest) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execl(SCREEN_EXE, "screen", "run", "-q", manifest.c_str(), "--threads", "1", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}
#endif

}  // namespace screen::engine::testing
