// Page-locked host memory for the tiled path's tables (host_table_pool.hpp).
//
// Why registered mappings kept per thread: measured on the H100 machine, cudaHostAlloc takes 0.55 s per
// GiB and a copy into fresh pageable memory 0.85 s per GiB (page faults), while registering memory already
// faulted in (transparent huge pages, touched by all threads) takes a few hundredths. So each calling thread
// (each GPU worker) keeps its mappings for its next groups: kKeptHostTables of them, so that one group's
// tables can be traced while the next group's come back into the other.
#include "kernels/nussinov/host_table_pool.hpp"

#include <cuda_runtime.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace screen::kernels::nussinov {
namespace {

struct Mapping {
  void* data = nullptr;
  std::size_t size = 0;
};

// Writes one byte of every 4 KiB page of [p, p + bytes), on up to 16 threads.
void touch_pages(unsigned char* p, std::size_t bytes) {
  const std::size_t pages = bytes / 4096;
  const std::size_t threads = std::max<std::size_t>(1, std::min<std::size_t>(16, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t)
    pool.emplace_back([=] {
      for (std::size_t k = pages * t / threads; k < pages * (t + 1) / threads; ++k)
        *reinterpret_cast<volatile unsigned char*>(p + k * 4096) = 0;
    });
  for (auto& th : pool) th.join();
}

std::size_t ram() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : 0;
}
std::size_t keep_cap() { return std::min<std::size_t>(std::size_t{8} << 30, ram() / 8); }

Mapping map_registered(std::size_t bytes) {
  const std::size_t huge = std::size_t{2} << 20;
  const std::size_t want = (bytes + huge - 1) / huge * huge;
  void* p = mmap(nullptr, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return {};
  (void)madvise(p, want, MADV_HUGEPAGE);  // fewer faults and pinned pages; a hint only
  // Fault the pages in on every core (one write per 4 KiB page) before registering them.
  touch_pages(static_cast<unsigned char*>(p), want);
  if (cudaHostRegister(p, want, cudaHostRegisterDefault) != cudaSuccess) {
    (void)cudaGetLastError();  // not sticky: fall back to pageable memory
    munmap(p, want);
    return {};
  }
  return {p, want};
}

void unmap(Mapping& m) noexcept {
  if (m.data) {
    cudaHostUnregister(m.data);
    munmap(m.data, m.size);
  }
  m = {};
}

// The mappings of one thread that are not handed out. Handles keep the pool alive (they may be released
// on another thread, after the owning thread has ended), so it is shared and locked.
class Pool : public std::enable_shared_from_this<Pool> {
 public:
  ~Pool() {
    for (Mapping& m : free_) unmap(m);
  }

  std::shared_ptr<void> get(std::size_t bytes) {
    if (bytes == 0 || bytes > ram() / 2) return nullptr;
    if (bytes > keep_cap()) {  // a group larger than what is kept: its own mapping, unmapped on release
      auto* m = new Mapping(map_registered(bytes));
      if (!m->data) {
        delete m;
        return nullptr;
      }
      return {m->data, [m](void*) {
                unmap(*m);
                delete m;
              }};
    }
    Mapping m = take(bytes);
    if (!m.data) return nullptr;
    std::shared_ptr<Pool> self = shared_from_this();
    return {m.data, [self, m](void*) { self->give_back(m); }};
  }

 private:
  // A free mapping of at least `bytes` (the smallest), else one made (in place of the largest free one,
  // which is too small): as large as the largest made so far and at least half again the one it replaces,
  // so that the thread's mappings reach the size its groups need after few remappings (each one faults
  // in and registers its memory again).
  Mapping take(std::size_t bytes) {
    Mapping found, drop;
    {
      const std::lock_guard<std::mutex> lock(mu_);
      auto best = free_.end();
      for (auto it = free_.begin(); it != free_.end(); ++it)
        if (it->size >= bytes && (best == free_.end() || it->size < best->size)) best = it;
      if (best != free_.end()) {
        found = *best;
        free_.erase(best);
        return found;
      }
      if (!free_.empty()) {  // too small: replaced by a larger one
        auto largest = std::max_element(free_.begin(), free_.end(),
                                        [](const Mapping& a, const Mapping& b) { return a.size < b.size; });
        drop = *largest;
        free_.erase(largest);
      }
    }
    const std::size_t grown = drop.size + drop.size / 2;
    unmap(drop);
    const Mapping made = map_registered(std::min(keep_cap(), std::max({bytes, grown, largest_.load()})));
    if (made.size > largest_.load()) largest_ = made.size;
    return made;
  }

  void give_back(Mapping m) noexcept {
    {
      const std::lock_guard<std::mutex> lock(mu_);
      if (free_.size() < static_cast<std::size_t>(kKeptHostTables)) {
        free_.push_back(m);
        return;
      }
    }
    unmap(m);
  }

  std::mutex mu_;
  std::vector<Mapping> free_;
  std::atomic<std::size_t> largest_{0};  // the largest kept mapping made (only the owning thread makes them)
};

}  // namespace

std::shared_ptr<void> pooled_host_tables(std::size_t bytes) {
  thread_local const std::shared_ptr<Pool> pool = std::make_shared<Pool>();
  return pool->get(bytes);
}

}  // namespace screen::kernels::nussinov
