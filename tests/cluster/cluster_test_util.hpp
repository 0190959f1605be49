#pragma once
// Helpers of the cluster tests: the engine tests' small job (tests/engine/engine_test_util.hpp)
// with a cluster section, and running the built `screen` with extra environment.
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/engine/engine_test_util.hpp"

namespace screen::cluster::testing {

using engine::testing::spit;
using engine::testing::TempDir;

using Result = engine::testing::CommandResult;  // out: standard output and error together

// Runs `env ENV screen ARGS` through the shell, capturing both streams.
inline Result screen(const std::string& args, const std::string& env = "") {
  return engine::testing::run_shell((env.empty() ? "" : "env " + env + " ") + std::string(SCREEN_EXE) + " " + args +
                                    " 2>&1");
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The engine tests' job (3 shards, devices cpu) with `cluster_yaml` appended.
inline std::string write_cluster_job(const TempDir& dir, int shards, const std::string& cluster_yaml) {
  const std::string manifest = engine::testing::write_job(dir, shards);
  spit(manifest, slurp(manifest) + cluster_yaml);
  return manifest;
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace screen::cluster::testing
