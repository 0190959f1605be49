#include "apps/screen/cli.hpp"

#include <fmt/format.h>

#include "common/error.hpp"

namespace screen::cli {

void not_yet(const std::string& what, const std::string& why) {
  throw NotImplementedError(what + " is not implemented in this version of screen yet (" +
                            why + "); see README.md, 'Status of the subcommands'");
}

// The results file `output` names: the file itself, or a job folder's results.h5. InputError (exit 4)
// for a path that does not exist or a folder that holds no results: one line saying which.
std::string results_file_of(const std::string& output) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(output, ec)) throw InputError(fmt::format("{}: no such file or folder", output));
  if (!fs::is_directory(output, ec)) return output;
  const std::string path = output + "/results.h5";
  if (fs::exists(path, ec)) return path;
  if (fs::exists(output + "/run.info", ec))
    throw InputError(fmt::format("{}: the job's results are not merged yet (no results.h5); `screen status {}` "
                                 "shows its progress, `screen merge {}` merges finished shards",
                                 output, output, output));
  throw InputError(fmt::format("{}: not a job's output folder (no results.h5 and no run.info)", output));
}

}  // namespace screen::cli
