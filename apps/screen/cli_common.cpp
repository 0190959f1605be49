#include "apps/screen/cli.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cmath>

#include "common/error.hpp"
#include "gpu/device_info.hpp"
#include "store/tables.hpp"
#include "stages/miranda/reference.hpp"

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

miranda::Hit hit_from_row(const store::MirandaHitRow& r, bool with_energy) {
  miranda::Hit h;
  h.has_energy = with_energy;
  h.energy = static_cast<int>(std::lround(r.energy * 100.0));  // stored as kcal/mol of a 0.01 grid
  h.query_index = r.query;
  h.target_index = r.target;
  h.score = r.score;
  h.qstart = r.qstart;
  h.qend = r.qend;
  h.rstart = r.rstart;
  h.rend = r.rend;
  h.align_len = r.align_len;
  h.identity = r.identity;
  h.similarity = r.similarity;
  h.query_line = r.query_aln;
  h.match_line = r.match_aln;
  h.target_line = r.target_aln;
  return h;
}

void warn_unusable_gpus(const std::string& command) {
  if (gpu::gpu_count() == 0 && gpu::cuda_device_count() > 0)
    spdlog::warn("{} --device auto: {}; running on the CPU", command, gpu::no_gpu_reason());
}

}  // namespace screen::cli
