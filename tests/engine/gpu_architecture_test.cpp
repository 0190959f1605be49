// architecture_mismatch (lib/gpu/architectures.hpp): whether a build's GPU code runs on a GPU of a given
// compute capability. The default build (90) has no code an A100 (8.0) or an RTX 30 card (8.6) can run,
// and CUDA only said so at the first kernel launch; the GPU discovery now leaves such a GPU out and names
// the rebuild.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu/architectures.hpp"

namespace {

using screen::gpu::architecture_mismatch;

// One case: a GPU of compute capability major.minor, a build's architecture list, and whether that build's
// code runs on that GPU.
struct Case {
  int major, minor;
  const char* archs;
  bool runs;
  const char* why;
};

void expect_cases(const std::vector<Case>& cases) {
  for (const Case& c : cases)
    EXPECT_EQ(architecture_mismatch(c.major, c.minor, c.archs).empty(), c.runs)
        << c.major << "." << c.minor << " with '" << c.archs << "': " << c.why;
}

TEST(GpuArchitectures, TheDefaultBuildRunsOnHopperAndLaterButNotOnAmpere) {
  expect_cases({{9, 0, "90", true, "H100, H200: machine code"},
                {10, 0, "90", true, "a later GPU: the driver compiles the PTX"},
                {8, 0, "90", false, "A100"},
                {8, 6, "90", false, "RTX 30, A40"},
                {8, 9, "90", false, "RTX 40, L40S"}});
}

TEST(GpuArchitectures, TheMessageNamesTheCapabilityTheListAndTheRebuild) {
  const std::string why = architecture_mismatch(8, 6, "90");
  EXPECT_NE(why.find("compute capability 8.6"), std::string::npos) << why;
  EXPECT_NE(why.find("CMAKE_CUDA_ARCHITECTURES=90"), std::string::npos) << why;
  EXPECT_NE(why.find("-DCMAKE_CUDA_ARCHITECTURES=86"), std::string::npos) << why;
}

TEST(GpuArchitectures, EachKindOfEntryRunsWhereCudaRunsIt) {
  expect_cases({
      // Machine code: later minor versions of its major version only.
      {8, 0, "80-real", true, "its own capability"},
      {8, 6, "80-real", true, "a later minor version"},
      {8, 9, "80-real", true, "a later minor version"},
      {8, 0, "86-real", false, "an earlier minor version"},
      {9, 0, "80-real", false, "another major version"},
      {9, 0, "80", true, "but the PTX beside it compiles for 9.0"},
      // PTX: its capability and every later one.
      {9, 0, "90-virtual", true, "its own capability"},
      {12, 0, "90-virtual", true, "a later GPU"},
      {8, 6, "90-virtual", false, "an earlier GPU"},
      // Architecture-specific targets: their capability only; family targets: later minor versions too.
      {9, 0, "90a", true, "its own capability"},
      {10, 0, "90a", false, "a later GPU"},
      {10, 3, "100a-real", false, "a later minor version"},
      {10, 3, "100f-real", true, "a later minor version of its family"},
      {9, 0, "100f-real", false, "an earlier GPU"},
      {11, 0, "100f", false, "another major version"},
  });
}

TEST(GpuArchitectures, ListsTakeAnyEntryThatRunsAndLeaveWhatTheyCannotJudgeToTheLaunch) {
  expect_cases({
      {8, 0, "80;90", true, "the first entry"},
      {8, 6, "90,80-real", true, "the build passes ',' between entries"},
      {9, 0, " 80 ; 90-real ", true, "spaces around entries"},
      {7, 5, "80;90", false, "no entry"},
      {7, 5, "native", true, "the build machine's GPUs: not judged"},
      {7, 5, "all-major", true, "not judged"},
      {7, 5, "all", true, "not judged"},
      {7, 5, "", true, "no list: not judged"},
      {7, 5, "80;native", true, "one entry not judged: the whole list is not"},
  });
}

}  // namespace
