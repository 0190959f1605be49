// architecture_mismatch (lib/gpu/architectures.hpp): whether a build's GPU code runs on a GPU of a given
// compute capability. The default build (90) has no code an A100 (8.0) or an RTX 30 card (8.6) can run,
// and CUDA only said so at the first kernel launch; the GPU discovery now leaves such a GPU out and names
// the rebuild.
#include <gtest/gtest.h>

#include <string>

#include "gpu/architectures.hpp"

namespace {

using screen::gpu::architecture_mismatch;

bool runs(int major, int minor, const std::string& archs) { return architecture_mismatch(major, minor, archs).empty(); }

TEST(GpuArchitectures, TheDefaultBuildRunsOnHopperAndLaterButNotOnAmpere) {
  EXPECT_TRUE(runs(9, 0, "90"));     // H100, H200: machine code
  EXPECT_TRUE(runs(10, 0, "90"));    // a later GPU: the driver compiles the PTX
  EXPECT_FALSE(runs(8, 0, "90"));    // A100
  EXPECT_FALSE(runs(8, 6, "90"));    // RTX 30, A40
  EXPECT_FALSE(runs(8, 9, "90"));    // RTX 40, L40S
}

TEST(GpuArchitectures, TheMessageNamesTheCapabilityTheListAndTheRebuild) {
  const std::string why = architecture_mismatch(8, 6, "90");
  EXPECT_NE(why.find("compute capability 8.6"), std::string::npos) << why;
  EXPECT_NE(why.find("CMAKE_CUDA_ARCHITECTURES=90"), std::string::npos) << why;
  EXPECT_NE(why.find("-DCMAKE_CUDA_ARCHITECTURES=86"), std::string::npos) << why;
}

TEST(GpuArchitectures, MachineCodeRunsOnLaterMinorVersionsOfItsMajorOnly) {
  EXPECT_TRUE(runs(8, 0, "80-real"));
  EXPECT_TRUE(runs(8, 6, "80-real"));
  EXPECT_TRUE(runs(8, 9, "80-real"));
  EXPECT_FALSE(runs(8, 0, "86-real"));  // machine code for 8.6 does not run on 8.0
  EXPECT_FALSE(runs(9, 0, "80-real"));  // nor on another major version
  EXPECT_TRUE(runs(9, 0, "80"));        // but the PTX beside it does
}

TEST(GpuArchitectures, PtxRunsOnItsCapabilityAndLater) {
  EXPECT_TRUE(runs(9, 0, "90-virtual"));
  EXPECT_TRUE(runs(12, 0, "90-virtual"));
  EXPECT_FALSE(runs(8, 6, "90-virtual"));
}

TEST(GpuArchitectures, ArchitectureSpecificTargetsRunOnTheirCapabilityOnly) {
  EXPECT_TRUE(runs(9, 0, "90a"));
  EXPECT_FALSE(runs(10, 0, "90a"));
  EXPECT_FALSE(runs(9, 0, "100f-real"));
}

TEST(GpuArchitectures, ListsTakeAnyEntryThatRuns) {
  EXPECT_TRUE(runs(8, 0, "80;90"));
  EXPECT_TRUE(runs(8, 6, "90,80-real"));  // the build passes ',' between entries
  EXPECT_TRUE(runs(9, 0, " 80 ; 90-real "));
  EXPECT_FALSE(runs(7, 5, "80;90"));
}

TEST(GpuArchitectures, ListsThatCannotBeJudgedAreLeftToTheLaunch) {
  EXPECT_TRUE(runs(7, 5, "native"));
  EXPECT_TRUE(runs(7, 5, "all-major"));
  EXPECT_TRUE(runs(7, 5, "all"));
  EXPECT_TRUE(runs(7, 5, ""));
  EXPECT_TRUE(runs(7, 5, "80;native"));
}

}  // namespace
