#pragma once
// A readable summary of a Job: what `screen validate` prints and what `screen run` logs at start.
#include <string>

#include "manifest/job.hpp"

namespace screen::manifest {

// Several lines, each ending in '\n': job, output, sets with their files, the enabled stages in
// run order with every parameter, resources, sharding, checkpoint and cluster settings.
std::string describe_job(const Job& job);

}  // namespace screen::manifest
