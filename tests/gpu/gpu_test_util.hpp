#pragma once
// SCREEN_REQUIRE_GPU(): first line of every GPU test; marks the test SKIPPED when no GPU is usable.
#include <gtest/gtest.h>

#include "gpu/device_info.hpp"

#define SCREEN_REQUIRE_GPU()                                                          \
  do {                                                                                \
    if (::screen::gpu::gpu_count() == 0) GTEST_SKIP() << ::screen::gpu::no_gpu_reason(); \
  } while (0)
