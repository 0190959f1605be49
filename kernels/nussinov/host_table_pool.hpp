#pragma once
// Page-locked host memory for the tiled path's tables copied back for tracebacks (nussinov.cu), handed
// out as shared handles: a group's tables stay valid for as long as its GroupOutput (or a copy of the
// handle) lives, so that its structures can be traced on another thread while the GPU folds the next
// group into other memory.
#include <cstddef>
#include <memory>

namespace screen::kernels::nussinov {

// Memory for `bytes` of tables from the calling thread's pool, or null when it cannot be had
// (registration fails, or more than half the machine's memory): the caller falls back to pageable
// vectors. Up to the kept size (an eighth of the machine's memory, at most 8 GiB) a released handle's
// memory goes back to the pool for the thread's later groups; larger ones are unmapped on release.
std::shared_ptr<void> pooled_host_tables(std::size_t bytes);

// Mappings the calling thread's pool keeps for reuse: two, one being filled while the other's
// tracebacks run.
constexpr int kKeptHostTables = 2;

}  // namespace screen::kernels::nussinov
