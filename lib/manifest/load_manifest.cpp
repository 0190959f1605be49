// The manifest's top level: YAML syntax, the sections, the rules that join them, and the result.
#include "manifest/load_manifest.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.hpp"
#include "common/sha256.hpp"
#include "manifest/sections.hpp"
#include "manifest/yaml_fields.hpp"

namespace screen::manifest {

namespace {

YAML::Node parse_yaml(const std::string& text, const std::string& display_path) {
  try {
    return YAML::Load(text);
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
    read_sets(root["queries"], job.queries, base_dir, set_names);
  else
    root.missing("queries", "a list of sets, - name: ..., fasta: ...");
  if (root.has("targets")) read_sets(root["targets"], job.targets, base_dir, set_names);

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
  return job;
}

Job load_manifest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  if (!in || std::filesystem::is_directory(path, ec))
    throw ManifestError(path + ": cannot read the manifest (no such file, or not readable)");
  std::ostringstream text;
  text << in.rdbuf();
  std::string base = std::filesystem::path(path).parent_path().string();
  return parse_manifest(text.str(), path, base.empty() ? "." : base);
}

}  // namespace screen::manifest
