#include "apps/screen/h5_output.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "engine/engine.hpp"
#include "gpu/device_info.hpp"
#include "manifest/load_manifest.hpp"

namespace screen::cli {

namespace fs = std::filesystem;

std::string pairs_yaml(const PairWeights& w) {
  return fmt::format("{{CG: {}, AU: {}, GU: {}}}", format_score(w.cg, w.scale), format_score(w.au, w.scale),
                     format_score(w.gu, w.scale));
}

namespace {

// Removes the temporary job folder however the run ends.
struct TempFolder {
  fs::path path;
  ~TempFolder() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string quoted(const std::string& s) {
  std::string q = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\"";
}

}  // namespace

void write_single_stage_h5(const SingleStageJob& j) {
  if (j.out.empty() || j.out == "-")
    throw UsageError(fmt::format("`screen {} --format h5` writes a file: give it with --out (e.g. --out results.h5)", j.command));
  for (const std::string* in : {&j.queries, &j.targets})
    if (*in == "-") throw UsageError(fmt::format("`screen {} --format h5` reads files, not standard input", j.command));
  if (j.device == "gpu" && gpu::gpu_count() == 0)
    throw ResourceError("--device gpu: no usable GPU (" + gpu::no_gpu_reason() + ")");
  const fs::path out = fs::absolute(j.out);
  TempFolder tmp{out.parent_path() / fmt::format(".{}.screen-{}", out.filename().string(), static_cast<long>(::getpid()))};
  std::error_code ec;
  fs::create_directories(tmp.path, ec);
  if (ec) throw ResourceError(fmt::format("{}: cannot create a working folder: {}", tmp.path.string(), ec.message()));
  std::string yaml = fmt::format("version: 1\njob:\n  name: {}\n  output: {}\nqueries:\n  - name: queries\n    fasta: {}\n",
                                 j.command, quoted((tmp.path / "job").string()), quoted(fs::absolute(j.queries).string()));
  if (!j.targets.empty())
    yaml += fmt::format("targets:\n  - name: targets\n    fasta: {}\n{}", quoted(fs::absolute(j.targets).string()),
                        j.both_strands ? "    strand: both\n" : "");
  yaml += "stages:\n" + j.stage_yaml;
  yaml += fmt::format("resources:\n  devices: {}\n  cpu_threads: {}\n", j.device == "cpu" ? "cpu" : "auto",
                      j.threads > 0 ? std::to_string(j.threads) : "auto");
  const fs::path manifest = tmp.path / "job.yaml";
  std::ofstream(manifest) << yaml;
  const manifest::Job job = manifest::load_manifest(manifest.string());
  engine::RunOptions o;
  o.threads = j.threads;
  o.command_line = j.command_line;
  const engine::RunSummary s = engine::run_job(job, o);
  if (s.results.empty()) throw Error(ExitCode::internal, fmt::format("`screen {} --format h5`: the run wrote no results", j.command));
  fs::rename(s.results, out, ec);
  if (ec) {  // another file system: copy, then the temporary folder goes
    fs::copy_file(s.results, out, fs::copy_options::overwrite_existing, ec);
    if (ec) throw ResourceError(fmt::format("{}: cannot write: {}", out.string(), ec.message()));
  }
}

}  // namespace screen::cli
