#pragma once
// Reading a job manifest: YAML text -> validated Job (job.hpp). Every problem found is reported,
// not only the first: a ManifestError (common/error.hpp, exit code 3) whose message holds one line
// per problem, "file:line:column: field.path: problem", lines and columns counted from 1.
// The manifest's format is documented in configs/*.yaml and the README.
#include <string>

#include "manifest/job.hpp"

namespace screen::manifest {

// Reads and validates the manifest at `path`; relative paths inside resolve against its folder.
// Input FASTA files must exist and be readable (they are not parsed here).
Job load_manifest(const std::string& path);

// The same on text in memory: `display_path` names the file in messages, `base_dir` is the folder
// relative paths resolve against.
Job parse_manifest(const std::string& yaml_text, const std::string& display_path, const std::string& base_dir);

}  // namespace screen::manifest
