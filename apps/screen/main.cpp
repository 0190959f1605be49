// screen: GPU-accelerated batch RNA-RNA interaction screening. Entry point: parses the command
// line, runs the chosen subcommand, and turns library errors into one message and an exit code.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <fmt/format.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "apps/screen/cli.hpp"
#include "common/error.hpp"
#include "common/version.hpp"
#include "gpu/device_info.hpp"
#include "manifest/did_you_mean.hpp"

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

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  return names;
}

// "unknown command 'frobnicate' ..." for the first word that is not an option and not a subcommand
// of `app`, descending into subcommands that themselves require one (`screen bench <stage>`). CLI11
// would only say "A subcommand is required". Options are skipped: where a subcommand is required,
// the options before it are flags, which take no value.
void check_subcommand_names(const CLI::App& app, int argc, char** argv) {
  const CLI::App* level = &app;
  std::string path = "screen";
  for (int i = 1; i < argc && level->get_require_subcommand_min() > 0; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') continue;
    const std::vector<std::string> names = subcommand_names(*level);
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : level->get_subcommands([](const CLI::App*) { return true; }))
      if (sub->check_name(word)) next = sub;
    if (next == nullptr) {
      const auto guess = screen::manifest::closest_match(word, names);
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      throw screen::UsageError(fmt::format("unknown command '{}' for `{}`{}; the commands are: {} (see `{} --help`)",
                                           word, path, guess ? fmt::format(" (did you mean '{}'?)", *guess) : "",
                                           list, path));
    }
    level = next;
    path += " " + word;
  }
}

}  // namespace

// `screen --version --json`: what a workflow manager records (name, version, commit, whether CUDA is
// built in, the usable GPUs), one JSON object on one line.
bool print_version_json(int argc, char** argv) {
  if (argc != 3) return false;
  const std::string a = argv[1], b = argv[2];
  if (!((a == "--version" && b == "--json") || (a == "--json" && b == "--version"))) return false;
  std::string gpus;
  for (const auto& d : screen::gpu::list_devices()) {
    std::string name;
    for (const char c : d.name) {
      if (c == '"' || c == '\\') name += '\\';
      if (static_cast<unsigned char>(c) >= 0x20) name += c;
    }
    gpus += fmt::format("{}{{\"index\":{},\"name\":\"{}\",\"sm\":\"{}.{}\",\"memory_bytes\":{}}}", gpus.empty() ? "" : ",",
                        d.index, name, d.sm_major, d.sm_minor, d.total_memory);
  }
  std::printf("{\"name\":\"screen\",\"version\":\"%s\",\"commit\":\"%s\",\"cuda\":%s,\"gpus\":[%s]}\n",
              screen::version_string(), screen::git_commit(), screen::gpu::built_with_cuda() ? "true" : "false",
              gpus.c_str());
  return true;
}

int main(int argc, char** argv) {
  if (print_version_json(argc, argv)) return 0;
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
  screen::cli::add_report(app, action);
  screen::cli::add_validate(app, action);
  screen::cli::add_fold(app, action);
  screen::cli::add_interact(app, action);
  screen::cli::add_align(app, action);
  screen::cli::add_bench(app, action);

  // A write past RLIMIT_FSIZE (`ulimit -f`) then fails with EFBIG, reported like a full disk,
  // instead of killing the process without a word.
  std::signal(SIGXFSZ, SIG_IGN);

  try {
    check_subcommand_names(app, argc, argv);
  } catch (const screen::UsageError& e) {
    std::fprintf(stderr, "screen: error: %s\n", e.what());
    return static_cast<int>(e.code());
  }
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
  } catch (const std::bad_alloc&) {
    // An allocation the up-front memory checks did not foresee: a resource problem, not a bug.
    std::fprintf(stderr,
                 "screen: error: out of memory (an allocation failed); use smaller inputs or a machine with more "
                 "memory\n");
    return static_cast<int>(screen::ExitCode::resource);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "screen: internal error: %s\n", e.what());
    return static_cast<int>(screen::ExitCode::internal);
  }
}
