// `screen validate MANIFEST`: loads and checks a job manifest, then reads every input with the
// reader `screen run` uses (engine::load_inputs: the same FASTA rules, length limits and errors) and
// makes the plan, so a manifest that validates is one that runs. Prints a summary of the job and of
// its inputs (exit 0), every manifest problem found, one per line (exit 3), or the first input
// problem with file, line and column (exit 4).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "apps/screen/cli.hpp"
#include "common/error.hpp"
#include "engine/inputs.hpp"
#include "manifest/describe.hpp"
#include "manifest/load_manifest.hpp"
#include "plan/plan.hpp"

namespace screen::cli {

namespace {

// "inputs: 3 queries (120 nt), 500 targets (2,200,000 nt), 2 records skipped for their length".
std::string describe_inputs(const engine::Inputs& in, const plan::Plan& p) {
  std::string t = fmt::format("inputs: {} queries ({} nt), {} targets ({} nt) read", in.queries.size(),
                              in.queries.total_length(), in.targets.size(), in.targets.total_length());
  if (!in.skipped.empty()) t += fmt::format(", {} records skipped for their length", in.skipped.size());
  t += fmt::format("\nplan: {} work units in {} shards", p.units.size(), p.shards.size());
  if (!p.skipped.empty()) t += fmt::format(", {} units over resources.max_unit_memory skipped", p.skipped.size());
  return t + "\n";
}

int run_validate(const std::string& path) {
  manifest::Job job;
  try {
    job = manifest::load_manifest(path);
  } catch (const ManifestError& e) {
    // One problem per line, as the loader found them, then a one-line verdict.
    const std::string problems = e.what();
    const auto count = std::count(problems.begin(), problems.end(), '\n') + 1;
    std::fprintf(stderr, "%s\nscreen: error: %s is not valid (%ld problem%s)\n", problems.c_str(), path.c_str(),
                 static_cast<long>(count), count == 1 ? "" : "s");
    return static_cast<int>(ExitCode::manifest);
  }
  std::fputs(manifest::describe_job(job).c_str(), stdout);
  std::fflush(stdout);
  const engine::Inputs in = engine::load_inputs(job);  // InputError (exit 4) names file, line and column
  const plan::Plan p = plan::make_plan(job, in.query_lengths(), in.target_lengths(), 0, in.target_both_strands);
  engine::require_work(p);
  std::fputs(describe_inputs(in, p).c_str(), stdout);
  std::printf("%s: valid\n", path.c_str());
  return 0;
}

}  // namespace

void add_validate(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "validate", "Check a job manifest and read its inputs as `screen run` would; summarise the job");
  auto manifest = std::make_shared<std::string>();
  cmd->add_option("manifest", *manifest, "Job manifest (YAML)")->required();
  cmd->callback([&action, manifest] { action = [manifest]() -> int { return run_validate(*manifest); }; });
}

}  // namespace screen::cli
