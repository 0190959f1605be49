// The manifest's top level: YAML syntax, the sections, the rules that join them, and the result.
#include "manifest/load_manifest.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "common/error.hpp"
#include "common/sha256.hpp"
#include "manifest/param_rules.hpp"
#include "manifest/results_identity.hpp"
#include "manifest/sections.hpp"
#include "manifest/yaml_fields.hpp"
#include "seq/input_file.hpp"

namespace screen::manifest {

namespace {

// The 1-based line of the '---' that opens the document whose first node is at `mark` (0: unknown).
long document_start_line(const std::string& text, const YAML::Mark& mark) {
  std::vector<std::size_t> starts{0};
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts.push_back(i + 1);
  const long last = mark.line >= 0 ? std::min<long>(mark.line, static_cast<long>(starts.size()) - 1)
                                   : static_cast<long>(starts.size()) - 1;
  for (long l = last; l >= 0; --l)
    if (text.compare(starts[static_cast<std::size_t>(l)], 3, "---") == 0) return l + 1;
  return mark.line >= 0 ? mark.line + 1 : 0;
}

// The manifest is one YAML document: a second one ('---' again) would otherwise be read by nobody,
// and a user who appended a changed copy would get the old job.
YAML::Node parse_yaml(const std::string& text, const std::string& display_path) {
  try {
    const std::vector<YAML::Node> docs = YAML::LoadAll(text);
    if (docs.size() > 1) {
      const long line = document_start_line(text, docs[1].Mark());
      throw ManifestError(located(display_path, line, line > 0 ? 1 : 0,
                                  fmt::format("the file holds {} YAML documents (separated by '---'); a manifest is "
                                              "one document: remove the others or put them in files of their own",
                                              docs.size())));
    }
    return docs.empty() ? YAML::Node() : docs[0];
  } catch (const YAML::Exception& e) {
    const bool known = e.mark.line >= 0 && e.mark.column >= 0;
    throw ManifestError(located(display_path, known ? e.mark.line + 1 : 0, known ? e.mark.column + 1 : 0,
                                "YAML syntax error: " + e.msg));
  }
}

void read_version(const Section& root, Job& job) {
  if (!root.has("version")) return;  // version 1 is assumed
  if (auto v = root["version"].integer()) {
    if (*v != 1)
      root["version"].problem("unsupported manifest version " + std::to_string(*v) + " (this screen reads version 1)");
    else
      job.version = 1;
  }
}

void read_everything(const Section& root, Job& job, const std::string& base_dir) {
  read_version(root, job);
  if (root.has("job"))
    read_job(root["job"], job, base_dir);
  else
    root.missing("job", "job: {name: ..., output: ...}");

  std::vector<std::pair<std::string, std::string>> set_names;
  if (root.has("queries"))
    read_sets(root["queries"], job.queries, base_dir, set_names, false);
  else
    root.missing("queries", "a list of sets, - name: ..., fasta: ...");
  if (root.has("targets")) read_sets(root["targets"], job.targets, base_dir, set_names, true);

  if (root.has("stages"))
    read_stages(root["stages"], job);
  else
    root.missing("stages", "enable at least one of nussinov, miranda, bpmax");
  if ((job.enabled(StageKind::miranda) || job.enabled(StageKind::bpmax)) && !root.has("targets"))
    root.missing("targets", "the miranda and bpmax stages screen queries against targets");

  if (root.has("resources")) read_resources(root["resources"], job.resources);
  if (root.has("sharding")) read_sharding(root["sharding"], job.sharding);
  if (root.has("checkpoint")) read_checkpoint(root["checkpoint"], job.checkpoint);
  if (root.has("cluster")) read_cluster(root["cluster"], job.cluster);
}

}  // namespace

Job parse_manifest(const std::string& yaml_text, const std::string& display_path, const std::string& base_dir) {
  const YAML::Node doc = parse_yaml(yaml_text, display_path);
  if (!doc.IsDefined() || doc.IsNull())
    throw ManifestError(located(display_path, 0, 0, "the manifest is empty (see configs/demo.yaml for an example)"));

  Problems problems(display_path);
  const Field top(doc, doc.Mark(), "", problems);
  const Section root(top, {"version", "job", "queries", "targets", "stages", "resources", "sharding",
                           "checkpoint", "cluster"});
  Job job;
  if (root.ok()) read_everything(root, job, base_dir);
  if (!problems.empty()) throw ManifestError(problems.joined());

  job.manifest_path = display_path;
  job.manifest_text = yaml_text;
  job.manifest_sha256 = sha256_hex(yaml_text);
  job.results_sha256 = results_identity_sha256(doc);
  return job;
}

Job load_manifest(const std::string& path) {
  // The path goes into run.info and batch scripts, one line each; relative input paths inherit it.
  if (const auto c = control_character(path))
    throw UsageError("the manifest path '" + printable(path) + "' contains " + *c +
                     "; newlines, tabs and other control characters are not accepted");
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw ManifestError(path + ": cannot read the manifest (no such file)");
  if (const std::string problem = seq::regular_file_problem(path); !problem.empty())
    throw ManifestError(path + ": the manifest " + problem);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ManifestError(path + ": cannot read the manifest (not readable)");
  std::ostringstream text;
  text << in.rdbuf();
  std::string base = std::filesystem::path(path).parent_path().string();
  return parse_manifest(text.str(), path, base.empty() ? "." : base);
}

}  // namespace screen::manifest
