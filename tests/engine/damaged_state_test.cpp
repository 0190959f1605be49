// Folders that are not what `screen` expects: `screen export` on a missing, empty or foreign folder
// and on a results.h5 that is not HDF5 or is truncated (exit 4, one line naming the path, no HDF5
// error stack); a damaged run.info (cut anywhere, or edited) reported as such by `status` and `run`
// (exit 4, naming the file and `--restart`), a complete version-1 run.info still read, and the
// "manifest changed" message never showing two equal hashes.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "common/sha256.hpp"
#include "engine/run_state.hpp"
#include "store/h5.hpp"
#include "engine_test_util.hpp"

namespace screen::engine::testing {
namespace {

// stdout and stderr together.
CommandResult screen_all(const std::string& args) { return run_shell(std::string(SCREEN_EXE) + " " + args + " 2>&1"); }

bool has(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t line_count(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// A finished 3-shard job in dir/out; returns the manifest.
std::string finished_job(const TempDir& dir) {
  const std::string manifest = write_job(dir, 3);
  manifest::Job job = manifest::load_manifest(manifest);
  job.output = dir.file("out");
  run_job(job, quiet_options(1));
  return manifest;
}

void expect_clean_input_error(const CommandResult& r, const std::string& path, const std::string& what) {
  EXPECT_EQ(r.code, 4) << r.out;
  EXPECT_EQ(line_count(r.out), 1u) << r.out;
  EXPECT_TRUE(has(r.out, "screen: error: " + path + ": ")) << r.out;
  EXPECT_TRUE(has(r.out, what)) << r.out;
  EXPECT_FALSE(has(r.out, "HDF5-DIAG")) << r.out;  // HDF5's printed stack
  EXPECT_FALSE(has(r.out, "H5F")) << r.out;        // its function names, as a captured stack has them
}

TEST(ExportErrors, WhatIsNotAJobsResultsExits4WithOneLine) {
  TempDir dir;
  finished_job(dir);
  const std::string good = dir.file("out/results.h5");
  const std::string bytes = slurp(good);
  ASSERT_GT(bytes.size(), 4096u);

  expect_clean_input_error(screen_all("export " + dir.file("missing") + " --stage nussinov"), dir.file("missing"),
                           "no such file or folder");
  fs::create_directories(dir.file("empty"));
  expect_clean_input_error(screen_all("export " + dir.file("empty") + " --stage nussinov"), dir.file("empty"),
                           "not a job's output folder");
  fs::create_directories(dir.file("random"));
  spit(dir.file("random/notes.txt"), "hello\n");
  expect_clean_input_error(screen_all("export " + dir.file("random") + " --stage nussinov"), dir.file("random"),
                           "not a job's output folder");
  // A job folder before its merge.
  fs::create_directories(dir.file("unmerged"));
  fs::copy_file(dir.file("out/run.info"), dir.file("unmerged/run.info"));
  expect_clean_input_error(screen_all("export " + dir.file("unmerged") + " --stage nussinov"), dir.file("unmerged"),
                           "not merged yet");

  fs::create_directories(dir.file("text"));
  spit(dir.file("text/results.h5"), "this is not HDF5\n");
  expect_clean_input_error(screen_all("export " + dir.file("text") + " --stage nussinov"),
                           dir.file("text/results.h5"), "not an HDF5 file");
  spit(dir.file("empty.h5"), "");
  expect_clean_input_error(screen_all("export " + dir.file("empty.h5") + " --stage nussinov"), dir.file("empty.h5"),
                           "an empty file");
  for (const std::size_t keep : {std::size_t{8}, std::size_t{200}, bytes.size() / 2, bytes.size() - 1}) {
    const std::string cut = dir.file("cut" + std::to_string(keep) + ".h5");
    spit(cut, bytes.substr(0, keep));
    const CommandResult r = screen_all("export " + cut + " --stage nussinov");
    EXPECT_EQ(r.code, 4) << keep << ": " << r.out;
    EXPECT_EQ(line_count(r.out), 1u) << keep << ": " << r.out;
    EXPECT_TRUE(has(r.out, cut + ": ")) << r.out;
    EXPECT_FALSE(has(r.out, "HDF5-DIAG")) << r.out;
    EXPECT_FALSE(has(r.out, "H5F")) << r.out;
  }
  // The real file still exports.
  EXPECT_EQ(screen_all("export " + dir.file("out") + " --stage nussinov").code, 0);
}

TEST(ExportErrors, StatusAndMergeOnAForeignFolderExit4) {
  TempDir dir;
  fs::create_directories(dir.file("random"));
  for (const char* cmd : {"status", "merge"}) {
    const CommandResult r = screen_all(std::string(cmd) + " " + dir.file("random"));
    EXPECT_EQ(r.code, 4) << cmd << ": " << r.out;
    EXPECT_TRUE(has(r.out, dir.file("random"))) << r.out;
  }
}

void expect_damaged(const CommandResult& r, const std::string& run_info, const std::string& manifest) {
  EXPECT_EQ(r.code, 4) << r.out;
  EXPECT_TRUE(has(r.out, run_info + ": damaged run.info")) << r.out;
  EXPECT_TRUE(has(r.out, "--restart")) << r.out;
  if (!manifest.empty()) {
    EXPECT_TRUE(has(r.out, "screen run " + manifest + " --restart")) << r.out;
  }
  EXPECT_FALSE(has(r.out, "0/0 done")) << r.out;
  EXPECT_FALSE(has(r.out, "manifest changed")) << r.out;
}

TEST(RunInfo, IsVersion2WithAChecksumLine) {
  TempDir dir;
  finished_job(dir);
  const std::string text = slurp(dir.file("out/run.info"));
  EXPECT_EQ(text.rfind("# screen run 2\n", 0), 0u) << text;
  const auto last = text.rfind('\n', text.size() - 2);
  EXPECT_EQ(text.substr(last + 1), "sha256\t" + sha256_hex(text.substr(0, last + 1)) + "\n");
}

TEST(RunInfo, CutAnywhereIsReportedByStatusAndRunAndRestartRecovers) {
  TempDir dir;
  const std::string manifest = finished_job(dir);
  const std::string out = dir.file("out");
  const std::string path = out + "/run.info";
  const std::string text = slurp(path);
  const std::string abs_manifest = fs::absolute(manifest).lexically_normal().string();
  // Every line end (a cut there leaves whole lines) and a few cuts inside lines.
  std::vector<std::size_t> cuts{0, 3, text.size() - 5, text.size() - 1};
  for (std::size_t i = 0; i + 1 < text.size(); ++i)
    if (text[i] == '\n') cuts.push_back(i + 1);
  for (const std::size_t keep : cuts) {
    spit(path, text.substr(0, keep));
    SCOPED_TRACE("run.info cut to " + std::to_string(keep) + " of " + std::to_string(text.size()) + " bytes");
    // The manifest is named once its line survived.
    const bool names_manifest = keep > text.find('\n', text.find("\nmanifest\t") + 1);
    expect_damaged(screen_all("status " + out), path, names_manifest ? abs_manifest : "");
    RunState s;
    EXPECT_THROW(read_run_state(out, s), InputError);
  }
  spit(path, text.substr(0, text.size() / 2));
  expect_damaged(screen_all("run " + manifest + " --threads 1"), path, abs_manifest);
  expect_damaged(screen_all("merge " + out), path, abs_manifest);
  const CommandResult again = screen_all("run -q " + manifest + " --threads 1 --restart");
  EXPECT_EQ(again.code, 0) << again.out;
  const CommandResult st = screen_all("status " + out);
  EXPECT_EQ(st.code, 0) << st.out;
  EXPECT_TRUE(has(st.out, "shards:   3/3 done")) << st.out;
}

TEST(RunInfo, AnEditedFileFailsItsChecksum) {
  TempDir dir;
  const std::string manifest = finished_job(dir);
  const std::string path = dir.file("out/run.info");
  std::string text = slurp(path);
  const auto at = text.find("\nunits\t");
  ASSERT_NE(at, std::string::npos);
  text[at + 7] = text[at + 7] == '9' ? '8' : static_cast<char>(text[at + 7] + 1);
  spit(path, text);
  const CommandResult r = screen_all("status " + dir.file("out"));
  expect_damaged(r, path, "");
  EXPECT_TRUE(has(r.out, "checksum mismatch")) << r.out;
}

// text (version 2) as version 1 wrote it: the old header, no checksum line.
std::string as_version1(const std::string& text) {
  const auto last = text.rfind('\n', text.size() - 2);
  std::string v1 = text.substr(0, last + 1);
  v1.replace(0, std::string("# screen run 2").size(), "# screen run 1");
  return v1;
}

TEST(RunInfo, ACompleteVersion1FileIsStillReadAndACutOneIsNot) {
  TempDir dir;
  const std::string manifest = finished_job(dir);
  const std::string out = dir.file("out");
  const std::string path = out + "/run.info";
  const std::string v1 = as_version1(slurp(path));
  spit(path, v1);
  CommandResult r = screen_all("status " + out);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "shards:   3/3 done")) << r.out;
  r = screen_all("run -q " + manifest + " --threads 1");  // resumes: nothing to do
  EXPECT_EQ(r.code, 0) << r.out;
  // Cut after the header, after the units line, and before the last shard line: all at line ends.
  for (const std::string& key : {std::string("\nmanifest\t"), std::string("\nshard\t"), std::string("\nshard\t2\t")}) {
    spit(path, v1.substr(0, v1.find(key) + 1));
    expect_damaged(screen_all("status " + out), path, "");
  }
}

// Replaces run.info's recorded manifest_sha256 by `change(recorded)` and seals the file with a
// matching checksum line, as a screen would have written it.
template <class Change>
void rewrite_recorded_hash(const std::string& path, Change change) {
  std::string text = slurp(path);
  const std::string key = "\nmanifest_sha256\t";
  const auto at = text.find(key) + key.size();
  text.replace(at, 64, change(text.substr(at, 64)));
  const auto last = text.rfind('\n', text.size() - 2);
  text = text.substr(0, last + 1);
  text += "sha256\t" + sha256_hex(text) + "\n";
  spit(path, text);
}

TEST(RunInfo, AChangedManifestShowsTwoDifferentHashes) {
  TempDir dir;
  const std::string manifest = finished_job(dir);
  // A recorded hash that differs from the manifest's only in its last digit, checksum intact.
  rewrite_recorded_hash(dir.file("out/run.info"), [](std::string hash) {
    hash[63] = hash[63] == '0' ? '1' : '0';
    return hash;
  });
  const CommandResult r = screen_all("run " + manifest + " --threads 1");
  EXPECT_EQ(r.code, 7) << r.out;
  const std::string opening = "the manifest changed where it decides the results (settings SHA-256 ";
  const auto m = r.out.find(opening);
  ASSERT_NE(m, std::string::npos) << r.out;
  const auto b = m + opening.size();
  const auto then_end = r.out.find(" then, ", b);
  const auto now_end = r.out.find(" now;", then_end);
  ASSERT_NE(now_end, std::string::npos) << r.out;
  const std::string then = r.out.substr(b, then_end - b);
  const std::string now = r.out.substr(then_end + 7, now_end - then_end - 7);
  EXPECT_NE(then, now) << r.out;
  EXPECT_EQ(then.size(), 64u) << r.out;
  // It names what may change before a resume: the run settings, from the one list that the hash leaves out.
  EXPECT_NE(r.out.find("only resources.devices, resources.cpu_threads, resources.gpu_memory_fraction, checkpoint, "
                       "cluster may change"),
            std::string::npos)
      << r.out;
}

// A folder whose run.info holds the manifest file's SHA-256 (what a screen before the results-settings
// hash recorded) is refused with a message saying so, not as a changed manifest.
TEST(RunInfo, AFolderOfAnEarlierScreenIsNamedAsSuch) {
  TempDir dir;
  const std::string manifest = finished_job(dir);
  const std::string file_hash = sha256_hex(slurp(manifest));
  rewrite_recorded_hash(dir.file("out/run.info"), [&](const std::string&) { return file_hash; });
  const CommandResult r = screen_all("run " + manifest + " --threads 1");
  EXPECT_EQ(r.code, 7) << r.out;
  EXPECT_TRUE(has(r.out, "started by an earlier screen")) << r.out;
  EXPECT_FALSE(has(r.out, "the manifest changed")) << r.out;
}

// A finished shard written by a screen of another part format (here: relabelled version 1, as
// before /miranda/hits had energies) is not damaged: the run refuses, naming the file and both
// versions, and keeps every finished file; --restart recomputes.
TEST(PartVersion, APartOfAnotherVersionIsRefusedAndKept) {
  TempDir dir;
  const std::string manifest = finished_job(dir);
  const std::string out = dir.file("out");
  const std::string part = out + "/part-000001.h5";
  ASSERT_TRUE(fs::exists(part));
  {
    store::h5::File f = store::h5::File::open(part, true);
    f.set_int("part_version", 1);
  }
  const std::string results_before = slurp(out + "/results.h5");
  const std::string part_before = slurp(part);
  const CommandResult r = screen_all("run " + manifest + " --threads 1");
  EXPECT_EQ(r.code, 7) << r.out;
  EXPECT_TRUE(has(r.out, part + ": written by a screen of part version 1; this screen reads and writes version 2"))
      << r.out;
  EXPECT_TRUE(has(r.out, "--restart")) << r.out;
  EXPECT_EQ(slurp(out + "/results.h5"), results_before);
  EXPECT_EQ(slurp(part), part_before);
  const CommandResult again = screen_all("run -q " + manifest + " --threads 1 --restart");
  EXPECT_EQ(again.code, 0) << again.out;
}

}  // namespace
}  // namespace screen::engine::testing
