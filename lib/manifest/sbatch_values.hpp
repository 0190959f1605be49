#pragma once
// What the manifest may hand to the SLURM batch scripts, checked both where the manifest is read
// (read_cluster, read_job: problems with file:line:column) and where the scripts are rendered
// (lib/cluster/sbatch_script.cpp: defence in depth). Each check returns an empty string when the
// value is fine and otherwise a message that says what is accepted.
#include <optional>
#include <string>
#include <string_view>

#include "manifest/param_rules.hpp"

namespace screen::manifest {

// control_character() and printable() are in param_rules.hpp (every text value's rule).

// sbatch takes any `#SBATCH` line holding "hetjob" or "packjob" (any case) for the separator of a
// heterogeneous job's components; a value that holds one would split the job.
std::string hetjob_word_problem(std::string_view text);

// cluster.partition: SLURM partition names (letters, digits, '_', '-', '.'), several separated by
// ',', no empty name, at most kMaxPartitionLength characters.
inline constexpr std::size_t kMaxPartitionLength = 256;
std::string partition_problem(std::string_view partition);

// One sbatch option as written in cluster.extra_sbatch: `--name`, `--name=value` (name: lower-case
// letters, digits, '-', starting with a letter), `-X`, `-X value` or `-Xvalue` (X a letter).
struct SbatchOption {
  bool is_long = true;   // --name[=value]; false: -X[ value]
  std::string name;      // without the dashes
  bool has_value = false;
  std::string value;     // any text but control characters; it is written quoted
  bool attached = false;  // -Xvalue (not -X value): kept, as getopt reads an optional argument only attached
};

// The option in `text`, or nullopt with `problem` saying why it is not exactly one option.
std::optional<SbatchOption> parse_sbatch_option(std::string_view text, std::string& problem);

}  // namespace screen::manifest
