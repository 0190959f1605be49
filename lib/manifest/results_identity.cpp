#include "manifest/results_identity.hpp"

#include <yaml-cpp/yaml.h>

#include "common/sha256.hpp"

namespace screen::manifest {

namespace {

// Removes `key` from the mapping `map` if both exist (operator[] on a non-const node would add it).
void remove_key(YAML::Node map, const char* key) {
  if (map.IsMap() && static_cast<const YAML::Node&>(map)[key]) map.remove(key);
}

}  // namespace

std::string results_identity_sha256(const YAML::Node& document) {
  YAML::Node copy = YAML::Clone(document);
  if (copy.IsMap()) {
    const YAML::Node& view = copy;
    if (const YAML::Node resources = view["resources"]) {
      for (const char* key : {"devices", "cpu_threads", "gpu_memory_fraction"}) remove_key(resources, key);
      if (resources.IsMap() && resources.size() == 0) remove_key(copy, "resources");  // = no section
    }
    remove_key(copy, "checkpoint");
    remove_key(copy, "cluster");
  }
  // The emitter writes the parsed document: comments and layout are gone, key order and scalars
  // as written stay (so `every: 5min` and `every: 300s` would count as different; both are left out).
  YAML::Emitter out;
  out << copy;
  return sha256_hex(std::string_view(out.c_str(), out.size()));
}

}  // namespace screen::manifest
