// screen: GPU-accelerated batch RNA-RNA interaction screening. Entry point: parses the command
// line, runs the chosen subcommand, and turns library errors into one message and an exit code.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <exception>
#include <string>

#include "apps/screen/cli.hpp"
#include "common/error.hpp"
#include "common/version.hpp"

namespace {

void setup_logging(int verbosity, bool quiet) {
  auto logger = spdlog::stderr_color_mt("screen");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("[%H:%M:%S] %^%l%$: %v");
  if (quiet)
    spdlog::set_level(spdlog::level::warn);
  else if (verbosity >= 2)
    spdlog::set_level(spdlog::level::trace);
  else if (verbosity == 1)
    spdlog::set_level(spdlog::level::debug);
  else
    spdlog::set_level(spdlog::level::info);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"screen: GPU-accelerated batch RNA-RNA interaction screening (Nussinov, miRanda-style, BPMax)",
               "screen"};
  app.require_subcommand(1);
  app.fallthrough();  // -v/-q may also follow the subcommand (subcommands inherit this setting)
  app.set_version_flag("--version", std::string("screen ") + screen::version_string() + " (commit " +
                                        screen::git_commit() + ")");
  int verbosity = 0;
  bool quiet = false;
  app.add_flag("-v,--verbose", verbosity, "More log output (repeat for more)");
  app.add_flag("-q,--quiet", quiet, "Only warnings and errors on stderr");

  screen::cli::Action action;
  screen::cli::add_run(app, action);
  screen::cli::add_plan(app, action);
  screen::cli::add_submit(app, action);
  screen::cli::add_status(app, action);
  screen::cli::add_merge(app, action);
  screen::cli::add_export(app, action);
  screen::cli::add_validate(app, action);
  screen::cli::add_fold(app, action);
  screen::cli::add_interact(app, action);
  screen::cli::add_align(app, action);
  screen::cli::add_bench(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);  // prints help/version or the parse error
    return rc == 0 ? 0 : static_cast<int>(screen::ExitCode::usage);
  }

  setup_logging(verbosity, quiet);
  try {
    if (!action) return static_cast<int>(screen::ExitCode::usage);
    return action();
  } catch (const screen::Error& e) {
    std::fprintf(stderr, "screen: error: %s\n", e.what());
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "screen: internal error: %s\n", e.what());
    return static_cast<int>(screen::ExitCode::internal);
  }
}
