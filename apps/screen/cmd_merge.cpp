// `screen merge OUTPUT`: re-merges results.h5 from the verified part files a job's journal lists
// (the manifest is the one run.info names; it must be unchanged, as must the inputs).
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "apps/screen/cli.hpp"
#include "common/error.hpp"
#include "engine/engine.hpp"
#include "engine/run_state.hpp"
#include "manifest/load_manifest.hpp"

namespace screen::cli {

namespace {

int run_merge(const std::string& output) {
  engine::RunState s;
  if (!engine::read_run_state(output, s))
    throw InputError(fmt::format("{}: no run.info; is this a job's output folder?", output));
  manifest::Job job = manifest::load_manifest(s.manifest_path);
  job.output = output;  // the folder given, even when the manifest names it differently
  const std::string results = engine::merge_output(job, "screen merge " + output);
  fmt::print("results: {}\n", results);
  return 0;
}

}  // namespace

void add_merge(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("merge", "Merge a job's part files into results.h5");
  auto out = std::make_shared<std::string>();
  cmd->add_option("output", *out, "The job's output folder")->required();
  cmd->callback([&action, out] { action = [out]() -> int { return run_merge(*out); }; });
}

}  // namespace screen::cli
