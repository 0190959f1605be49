#pragma once
// Whether this build's GPU code runs on a GPU of a given compute capability. nvcc compiles the kernels for
// the architectures CMake's CMAKE_CUDA_ARCHITECTURES names (90 by default: the H100 and H200); a GPU none of
// them covers (an A100 is 8.0, the RTX 30 series 8.6) cannot run them, and CUDA only says so at the first
// launch ("no kernel image is available"). The GPU discovery (device_info.hpp) checks every GPU first, so that
// such a GPU is reported with the rebuild that fixes it.
#include <string>

namespace screen::gpu {

// The architectures this build has GPU code for, as CMake's list ("90", "80;90-real", ...); empty without CUDA.
std::string built_architectures();

// Empty when code built for `architectures` (a CMAKE_CUDA_ARCHITECTURES list, ';' or ',' between entries)
// runs on a GPU of compute capability major.minor, else why not and how to rebuild. An entry "XY" holds
// machine code for sm_XY and PTX for compute_XY, "XY-real" the machine code only, "XY-virtual" the PTX only.
// Machine code for X.Y runs on X.Z for Z >= Y (the same major version); PTX is compiled by the driver for any
// later GPU; an "XYa" target (machine code or PTX) runs on X.Y only, an "XYf" target on X.Z for Z >= Y. Lists this cannot judge ("native", "all", "all-major", or empty)
// give an empty answer: the launch reports any failure.
std::string architecture_mismatch(int major, int minor, const std::string& architectures);

}  // namespace screen::gpu
