// The job section and the query/target sets: names, output and input paths.
#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <limits>

#include "manifest/param_rules.hpp"
#include "manifest/sbatch_values.hpp"
#include "manifest/sections.hpp"
#include "seq/input_file.hpp"

namespace screen::manifest {

namespace fs = std::filesystem;

namespace {

constexpr long long kMaxLength = 1'000'000'000'000LL;

// Input files are checked here, not parsed: missing, a folder, or unreadable.
void check_input_file(const Field& field, const std::string& resolved) {
  std::error_code ec;
  const auto status = fs::status(resolved, ec);
  if (ec || !fs::exists(status)) {
    field.problem("file not found: " + resolved);
    return;
  }
  if (fs::is_directory(status)) {
    field.problem("is a folder, not a FASTA file: " + resolved);
    return;
  }
  if (const std::string problem = seq::regular_file_problem(resolved); !problem.empty()) {
    field.problem(resolved + " " + problem);  // before any read: a FIFO would block it
    return;
  }
  std::ifstream in(resolved, std::ios::binary);
  char c;
  if (!in || (!in.get(c) && !in.eof())) field.problem("cannot be read: " + resolved);
}

void read_set(const Field& field, SetSpec& set, const std::string& base_dir,
              std::vector<std::pair<std::string, std::string>>& seen, bool targets) {
  // strand is a target set's key only: a query (microRNA) is always read as written.
  Section s(field, targets ? std::vector<std::string>{"name", "fasta", "min_length", "max_length", "strand"}
                           : std::vector<std::string>{"name", "fasta", "min_length", "max_length"});
  if (!s.ok()) return;
  if (!s.has("name")) {
    s.missing("name", "a short name for the set, such as mirnas");
  } else if (auto name = s["name"].text(); name && check_name(s["name"], *name)) {
    set.name = *name;
    bool duplicate = false;
    for (const auto& [other, where] : seen) {
      if (other == set.name) {
        s["name"].problem(fmt::format("duplicate set name '{}' (also {})", set.name, where));
        duplicate = true;
      }
    }
    if (!duplicate) seen.emplace_back(set.name, s["name"].path());
  }
  if (!s.has("fasta")) {
    s.missing("fasta", "the FASTA file, plain or .gz");
  } else if (auto fasta = s["fasta"].text()) {
    set.fasta_as_written = *fasta;
    set.fasta = resolve_path(base_dir, *fasta);
    check_input_file(s["fasta"], set.fasta);
  }
  if (s.has("min_length")) {
    if (auto v = s["min_length"].integer(1, kMaxLength)) set.min_length = static_cast<std::size_t>(*v);
  }
  if (s.has("max_length")) {
    if (auto v = s["max_length"].integer(0, kMaxLength)) {
      set.max_length = static_cast<std::size_t>(*v);
      if (set.max_length != 0 && set.max_length < set.min_length)
        s["max_length"].problem(fmt::format("must be 0 (unlimited) or >= min_length {} (got {})", set.min_length, *v));
    }
  }
  if (targets && s.has("strand")) {
    if (auto v = s["strand"].choice({"forward", "both"})) set.strand = *v == "both" ? Strand::both : Strand::forward;
  }
}

}  // namespace

std::string resolve_path(const std::string& base_dir, const std::string& p) {
  fs::path path(p);
  if (path.is_relative()) {
    std::error_code ec;
    fs::path base = fs::absolute(base_dir.empty() ? fs::path(".") : fs::path(base_dir), ec);
    if (ec) base = fs::path(base_dir);
    path = base / path;
  }
  std::string out = path.lexically_normal().string();
  if (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

bool check_name(const Field& field, const std::string& name) { return field.accept(rules::name(name)); }

namespace {

// The job name is part of both scripts' --job-name (sbatch would split the job at "hetjob").
bool check_job_name(const Field& field, const std::string& name) {
  const std::string problem = hetjob_word_problem(name);
  if (!problem.empty()) field.problem(problem + "; choose another job name");
  return problem.empty();
}

}  // namespace

void read_job(const Field& field, Job& job, const std::string& base_dir) {
  Section s(field, {"name", "output"});
  if (!s.ok()) return;
  if (!s.has("name")) {
    s.missing("name", "names the job, its SLURM jobs and its default output folder");
  } else if (auto name = s["name"].text(); name && check_name(s["name"], *name) && check_job_name(s["name"], *name)) {
    job.name = *name;
  }
  std::string output = "results/" + (job.name.empty() ? std::string("job") : job.name);
  if (s.has("output")) {
    if (auto o = s["output"].text()) output = *o;  // text(): no control characters
  }
  job.output_as_written = output;
  job.output = resolve_path(base_dir, output);
  std::error_code ec;
  if (fs::exists(job.output, ec) && !fs::is_directory(job.output, ec))
    (s.has("output") ? s["output"] : s.self()).problem("exists and is not a folder: " + job.output);
}

void read_sets(const Field& field, std::vector<SetSpec>& sets, const std::string& base_dir,
               std::vector<std::pair<std::string, std::string>>& seen, bool targets) {
  auto items = field.items("a list of sets (- name: ..., fasta: ...)");
  if (!items) return;
  if (items->empty()) field.problem("needs at least one set");
  for (const auto& item : *items) {
    SetSpec set;
    read_set(item, set, base_dir, seen, targets);
    sets.push_back(std::move(set));
  }
}

}  // namespace screen::manifest
