// `screen validate MANIFEST`: loads and checks a job manifest and its input files, then prints a
// summary of the job (exit 0) or every problem found, one per line (exit 3, ExitCode::manifest).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "apps/screen/cli.hpp"
#include "common/error.hpp"
#include "manifest/describe.hpp"
#include "manifest/load_manifest.hpp"

namespace screen::cli {

void add_validate(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("validate", "Check a job manifest and its input files, and summarise the job");
  auto manifest = std::make_shared<std::string>();
  cmd->add_option("manifest", *manifest, "Job manifest (YAML)")->required();
  cmd->callback([&action, manifest] {
    action = [manifest]() -> int {
      try {
        const manifest::Job job = manifest::load_manifest(*manifest);
        std::fputs(manifest::describe_job(job).c_str(), stdout);
        std::printf("%s: valid\n", manifest->c_str());
        return 0;
      } catch (const ManifestError& e) {
        // One problem per line, as the loader found them, then a one-line verdict.
        const std::string problems = e.what();
        const auto count = std::count(problems.begin(), problems.end(), '\n') + 1;
        std::fprintf(stderr, "%s\nscreen: error: %s is not valid (%ld problem%s)\n", problems.c_str(),
                     manifest->c_str(), static_cast<long>(count), count == 1 ? "" : "s");
        return static_cast<int>(ExitCode::manifest);
      }
    };
  });
}

}  // namespace screen::cli
