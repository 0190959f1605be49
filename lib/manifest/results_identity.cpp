#include "manifest/results_identity.hpp"

#include <yaml-cpp/yaml.h>

#include "common/error.hpp"
#include "common/sha256.hpp"

namespace screen::manifest {

namespace {

// Removes `key` from the mapping `map` if both exist (operator[] on a non-const node would add it).
void remove_key(YAML::Node map, const char* key) {
  if (map.IsMap() && static_cast<const YAML::Node&>(map)[key]) map.remove(key);
}

}  // namespace

const std::vector<std::string>& run_setting_keys() {
  static const std::vector<std::string> keys{"resources.devices", "resources.cpu_threads",
                                             "resources.gpu_memory_fraction", "checkpoint", "cluster"};
  return keys;
}

std::string results_identity_sha256(const YAML::Node& document) {
  YAML::Node copy = YAML::Clone(document);
  if (copy.IsMap()) {
    const YAML::Node& view = copy;
    for (const std::string& path : run_setting_keys()) {
      const auto dot = path.find('.');
      if (dot == std::string::npos) {
        remove_key(copy, path.c_str());
        continue;
      }
      const std::string section = path.substr(0, dot);
      if (const YAML::Node inner = view[section]) {
        remove_key(inner, path.substr(dot + 1).c_str());
        if (inner.IsMap() && inner.size() == 0) remove_key(copy, section.c_str());  // = no section
      }
    }
  }
  // The emitter writes the parsed document: comments and layout are gone, key order and scalars
  // as written stay (so `every: 5min` and `every: 300s` would count as different; both are left out).
  YAML::Emitter out;
  out << copy;
  if (!out.good())
    throw Error(ExitCode::internal, "manifest: cannot re-emit the document to hash it: " + out.GetLastError());
  return sha256_hex(std::string_view(out.c_str(), out.size()));
}

}  // namespace screen::manifest
