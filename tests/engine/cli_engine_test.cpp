// The engine's subcommands through the built `screen`: plan, run (--shard, refusal exit codes),
// status, merge and export.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>

#include "engine_test_util.hpp"

namespace screen::engine::testing {
namespace {

using Result = CommandResult;  // out: stdout only

Result screen(const std::string& args) { return run_shell(std::string(SCREEN_EXE) + " " + args + " 2>/dev/null"); }

std::size_t count_lines(const std::string& s, const std::string& prefix) {
  std::size_t n = 0, b = 0;
  while (b < s.size()) {
    std::size_t e = s.find('\n', b);
    if (e == std::string::npos) e = s.size();
    if (s.compare(b, prefix.size(), prefix) == 0) ++n;
    b = e + 1;
  }
  return n;
}

TEST(EngineCli, PlanRunStatusMergeExport) {
  TempDir dir;
  const std::string manifest = write_job(dir, 3);
  const std::string out = dir.file("out");

  const Result plan = screen("plan " + manifest);
  EXPECT_EQ(plan.code, 0) << plan.out;
  EXPECT_EQ(count_lines(plan.out, "skipped\tquery\tmirs\ttooshort\t"), 1u) << plan.out;
  EXPECT_NE(plan.out.find("49 work units, 3 shards"), std::string::npos) << plan.out;

  EXPECT_EQ(screen("run " + manifest + " --shard 2").code, 0);
  Result st = screen("status " + out);
  EXPECT_EQ(st.code, 0);
  EXPECT_NE(st.out.find("shards:   1/3 done"), std::string::npos) << st.out;
  EXPECT_NE(st.out.find("pending:  0 1"), std::string::npos) << st.out;
  EXPECT_EQ(screen("merge " + out).code, 7);  // shards missing
  EXPECT_EQ(screen("run " + manifest + " --shard 3").code, 2);

  EXPECT_EQ(screen("run " + manifest).code, 0);
  st = screen("status " + out);
  EXPECT_NE(st.out.find("shards:   3/3 done"), std::string::npos) << st.out;
  EXPECT_NE(st.out.find("units:    49/49 done"), std::string::npos) << st.out;
  EXPECT_EQ(screen("merge " + out).code, 0);

  const store::ResultsReader rd(out + "/results.h5");
  const auto hits = rd.miranda_hits();
  ASSERT_FALSE(hits.empty());
  const Result mir = screen("export " + out + " --stage miranda --format miranda");
  EXPECT_EQ(mir.code, 0);
  EXPECT_EQ(count_lines(mir.out, ">>"), rd.miranda_pairs().size());
  EXPECT_EQ(count_lines(mir.out, ">") - count_lines(mir.out, ">>"), hits.size());
  const Result tsv = screen("export " + out + " --stage miranda");
  EXPECT_EQ(count_lines(tsv.out, "q"), hits.size() + 1);  // header "query..." and rows of q0..q4
  const Result nus = screen("export " + out + " --stage nussinov");
  EXPECT_EQ(count_lines(nus.out, "query\tmirs\t"), 5u);
  EXPECT_EQ(count_lines(nus.out, "target\tutrs\t"), 4u);
  const Result bp = screen("export " + out + " --stage bpmax");
  EXPECT_EQ(count_lines(bp.out, "q"), 21u);
  EXPECT_EQ(screen("export " + out + " --stage foo").code, 2);

  // A changed input: exit 7 (conflict) without --restart.
  {
    std::ofstream f(dir.file("queries.fa"), std::ios::app);
    f << ">q9\nACGUACGUACGUACGUACGUAC\n";
  }
  EXPECT_EQ(screen("run " + manifest).code, 7);
  EXPECT_EQ(screen("run " + manifest + " --restart").code, 0);
  EXPECT_NE(screen("status " + out).out.find("units:    58/58 done"), std::string::npos);
}

}  // namespace
}  // namespace screen::engine::testing
