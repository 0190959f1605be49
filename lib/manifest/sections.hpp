#pragma once
// Readers of the manifest's sections, used by load_manifest.cpp. Each fills its part of the Job and
// records every problem it finds; values that fail keep their defaults.
#include <string>
#include <utility>
#include <vector>

#include "manifest/job.hpp"
#include "manifest/yaml_fields.hpp"

namespace screen::manifest {

// `p` as written in the manifest -> absolute and lexically normal, relative paths taken from base_dir.
std::string resolve_path(const std::string& base_dir, const std::string& p);

// Names of sets, jobs: letters, digits, '_', '-', '.'; records a problem otherwise.
bool check_name(const Field& field, const std::string& name);

void read_job(const Field& field, Job& job, const std::string& base_dir);

// queries / targets (`targets`: the target sets, which may also say `strand`). `seen` holds (set name,
// field path of its name) across both lists.
void read_sets(const Field& field, std::vector<SetSpec>& sets, const std::string& base_dir,
               std::vector<std::pair<std::string, std::string>>& seen, bool targets);

void read_stages(const Field& field, Job& job);

void read_resources(const Field& field, Resources& resources);
void read_sharding(const Field& field, Sharding& sharding);
void read_checkpoint(const Field& field, Checkpoint& checkpoint);
void read_cluster(const Field& field, Cluster& cluster);

}  // namespace screen::manifest
