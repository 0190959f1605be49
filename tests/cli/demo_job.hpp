#pragma once
// The demo manifest (configs/demo.yaml) run on the CPU into a temporary folder, for the tests of the
// commands that read a job's output (export, report). Returns the output folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/cli/cli_temp_dir.hpp"
#include "tests/cli/run_screen.hpp"

namespace screen::testing {

inline std::string run_demo_job(const CliTempDir& dir) {
  std::ifstream in("configs/demo.yaml");
  std::ostringstream text;
  text << in.rdbuf();
  std::string manifest = text.str();
  const std::string data = std::filesystem::absolute("data/demo").string() + "/";
  for (std::size_t at; (at = manifest.find("../data/demo/")) != std::string::npos;) manifest.replace(at, 13, data);
  const std::string out = dir.path("job");
  manifest.replace(manifest.find("../results/demo"), 15, out);
  manifest.replace(manifest.find("devices: auto"), 13, "devices: cpu");
  const auto r = run_screen({"-q", "run", dir.write("demo.yaml", manifest), "--threads", "2"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  return out;
}

}  // namespace screen::testing
