// What a run's results depend on, as one hash: resuming compares it, not the manifest's bytes, so
// that a run stopped by a failed GPU can go on with `resources.devices` naming the GPUs left, or
// with other threads, another checkpoint interval or other cluster settings.
#pragma once

#include <string>
#include <vector>

namespace YAML {
class Node;
}

namespace screen::manifest {

// The settings that never change a result: how the work is run, not what it computes, as key paths
// ("section" or "section.key"). Everything else of the manifest counts (a new key counts until it is
// listed here); resources.max_unit_memory counts: it decides which units are skipped.
const std::vector<std::string>& run_setting_keys();

// SHA-256 (lower-case hex) of the manifest's document re-emitted by yaml-cpp without those keys:
// comments and layout do not count; keys, their order and every other value as written do.
std::string results_identity_sha256(const YAML::Node& document);

}  // namespace screen::manifest
