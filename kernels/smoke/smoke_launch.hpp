#pragma once
// A small kernel whose result the host can check: proves the build, the driver and the launch path.
#include <cstdint>
#include <vector>

namespace screen::kernels {

// out[i] = max(a[i] + b[i], c[i]) computed on GPU `device` with a fused add-max (Hopper DPX
// __viaddmax_s32 where the architecture has it, plain add and max elsewhere).
std::vector<std::int32_t> smoke_add_max(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b,
                                        const std::vector<std::int32_t>& c, int device = 0);

}  // namespace screen::kernels
