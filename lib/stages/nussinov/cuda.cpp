// Host side of the Nussinov CUDA path: memory planning, grouping, and the traceback (traceback.hpp,
// on the host, over the tile-packed table copied back). The kernels are kernels/nussinov/.
#include "stages/nussinov/cuda.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <type_traits>

#include "common/error.hpp"
#include "common/work_profile.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_info.hpp"
#include "kernels/nussinov/nussinov_launch.hpp"
#include "stages/nussinov/traceback.hpp"

namespace screen::nussinov {
namespace knl = screen::kernels::nussinov;
namespace packed = screen::nussinov::packed;

namespace {

// Host memory allowed for the tables of one group copied back for tracebacks.
constexpr std::size_t kHostTableBudget = std::size_t{8} << 30;

void require_device(int device) {
  const int count = gpu::gpu_count();
  if (count == 0) throw ResourceError("Nussinov on the GPU: " + gpu::no_gpu_reason());
  if (device < 0 || device >= count)
    throw ResourceError(fmt::format("Nussinov on the GPU: no GPU {} (this machine has {})", device, count));
}

// Free device memory this path may use: what cudaMemGetInfo reports, less planning_budget's reserve.
std::size_t device_budget(int device) {
  CUDA_CHECK(cudaSetDevice(device));
  std::size_t free = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return gpu::planning_budget(free, total, 1.0);
}

double gib(std::size_t b) { return static_cast<double>(b) / static_cast<double>(std::size_t{1} << 30); }

std::size_t table_bytes(int n, int cell_bytes) {
  return knl::tile_count(knl::tiles_per_side(n)) * knl::kTile * knl::kTile * static_cast<std::size_t>(cell_bytes);
}

// tile_base: the per-tile bases of relative (16-bit) cells, or null for plain ones.
template <class Cell>
std::string trace_packed(const std::uint8_t* s, int n, const Params& p, const Cell* tab, const std::int32_t* tile_base) {
  const int nt = knl::tiles_per_side(n);
  // N(i, j) = M(i, j+1); N of an empty interval (i > j) is 0.
  if constexpr (std::is_same_v<Cell, std::int16_t>) {
    if (tile_base)
      return traceback(s, n, p, [&](int i, int j) -> int {
        return i > j ? 0 : packed::relative_value(tab, tile_base, i, j + 1, nt);
      });
  }
  return traceback(s, n, p, [&](int i, int j) -> int {
    return i > j ? 0 : static_cast<int>(tab[knl::cell_offset(i, j + 1, nt)]);
  });
}

// Tracebacks of one group (in parallel over its sequences); frees each table once used. gs/gl are
// the group's sequences, idx[k] the position of group member k in `out`.
void trace_group(const std::vector<const std::uint8_t*>& gs, const std::vector<int>& gl, const Params& p,
                 knl::GroupOutput& g, std::vector<FoldResult>& out, const std::vector<int>& idx) {
  const int count = static_cast<int>(idx.size());
  std::vector<std::string> errors(idx.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (int k = 0; k < count; ++k) {
    const auto ku = static_cast<std::size_t>(k);
    auto& r = out[static_cast<std::size_t>(idx[ku])];
    try {
      if (g.cell_bytes == 2) {
        r.structure = trace_packed(gs[ku], gl[ku], p, g.table16[ku], g.relative ? g.tile_base[ku] : nullptr);
        if (ku < g.tables16.size()) decltype(g.tables16)::value_type().swap(g.tables16[ku]);
      } else {
        r.structure = trace_packed(gs[ku], gl[ku], p, g.table32[ku], nullptr);
        if (ku < g.tables32.size()) decltype(g.tables32)::value_type().swap(g.tables32[ku]);
      }
    } catch (const std::exception& e) {
      errors[ku] = e.what();
    }
  }
  for (const auto& e : errors)
    if (!e.empty()) throw Error(ExitCode::internal, "Nussinov GPU traceback: " + e);
}

// Runs one group (indices into seqs) through the tiled engine or the shared-memory kernel.
void run_group(bool small, const std::vector<const std::uint8_t*>& seqs, const std::vector<int>& lengths,
               const std::vector<int>& idx, const Params& p, int cell_bytes, bool with_traceback,
               std::vector<FoldResult>& out, int device) {
  std::vector<const std::uint8_t*> gs;
  std::vector<int> gl;
  for (int k : idx) {
    gs.push_back(seqs[static_cast<std::size_t>(k)]);
    gl.push_back(lengths[static_cast<std::size_t>(k)]);
  }
  knl::GroupOutput g;
  const auto t0 = std::chrono::steady_clock::now();
  {
    const work_profile::GpuSectionTimer gpu_time;  // synchronous: the kernels and the copies back
    if (small) knl::smem_fold(gs, gl, p, cell_bytes, with_traceback, g, device);
    else knl::tiled_fold(gs, gl, p, cell_bytes, with_traceback, g, device);
  }
  const auto t1 = std::chrono::steady_clock::now();
  for (std::size_t k = 0; k < idx.size(); ++k) out[static_cast<std::size_t>(idx[k])].score = g.scores[k];
  if (with_traceback) {
    const work_profile::TracebackTimer traceback_time;
    trace_group(gs, gl, p, g, out, idx);
    if (!small) knl::release_large_host_tables();
  }
  spdlog::debug("nussinov gpu group: {} sequences, longest {} nt, {} path: {:.3f} s on the GPU (of which {:.3f} s "
                "copying tables back), traceback {:.3f} s",
                gs.size(), gl.empty() ? 0 : *std::max_element(gl.begin(), gl.end()), small ? "shared-memory" : "tiled",
                std::chrono::duration<double>(t1 - t0).count(), g.tables_seconds,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count());
}

}  // namespace

bool gpu_available() { return gpu::gpu_count() > 0; }

FoldResult fold_gpu_long(const std::uint8_t* s, int n, const Params& p, bool with_traceback, int device) {
  FoldResult r;
  if (n <= 0) return r;
  require_device(device);
  const int cb = knl::cell_bytes_for(n, p);
  const std::vector<int> lengths{n};
  const std::size_t need = knl::tiled_bytes(lengths, cb, device);
  const std::size_t budget = device_budget(device);
  if (need > budget)
    throw ResourceError(fmt::format(
        "Nussinov on the GPU: a sequence of {} nt needs {:.2f} GiB of GPU memory ({}-bit cells{}), but GPU {} has "
        "{:.2f} GiB free to use; fold it on the CPU or on a larger GPU",
        n, gib(need), cb * 8, knl::relative_cells(n, cb, p) ? " with per-tile bases" : "", device, gib(budget)));
  std::vector<FoldResult> out(1);
  run_group(false, {s}, lengths, {0}, p, cb, with_traceback, out, device);
  return out[0];
}

std::vector<FoldResult> fold_gpu_batch(const std::vector<const std::uint8_t*>& seqs, const std::vector<int>& lengths,
                                       const Params& p, bool with_traceback, int device) {
  if (seqs.size() != lengths.size()) throw UsageError("fold_gpu_batch: seqs and lengths differ in size");
  std::vector<FoldResult> out(seqs.size());
  std::vector<int> order;
  for (std::size_t k = 0; k < seqs.size(); ++k)
    if (lengths[k] > 0) order.push_back(static_cast<int>(k));
  if (order.empty()) return out;
  require_device(device);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    return lengths[static_cast<std::size_t>(x)] > lengths[static_cast<std::size_t>(y)];
  });
  const std::size_t budget = device_budget(device);

  // Short sequences: shared-memory kernel, one block each (width by the longest short one).
  std::vector<int> small, large;
  {
    const int cb_small = knl::cell_bytes_for(knl::smem_max_n(2), p);
    const int limit = knl::smem_max_n(cb_small);
    for (int k : order) (lengths[static_cast<std::size_t>(k)] <= limit ? small : large).push_back(k);
  }
  if (!small.empty()) {
    const int cb = knl::cell_bytes_for(lengths[static_cast<std::size_t>(small.front())], p);
    std::vector<int> group;
    std::vector<int> gl;
    std::size_t host = 0;
    auto flush = [&] {
      if (!group.empty()) run_group(true, seqs, lengths, group, p, cb, with_traceback, out, device);
      group.clear();
      gl.clear();
      host = 0;
    };
    for (int k : small) {
      const int n = lengths[static_cast<std::size_t>(k)];
      gl.push_back(n);
      const std::size_t tb = with_traceback ? table_bytes(n, cb) : 0;
      if (!group.empty() && (knl::smem_bytes(gl, cb, with_traceback) > budget || host + tb > kHostTableBudget)) {
        gl.pop_back();
        flush();
        gl.push_back(n);
      }
      group.push_back(k);
      host += tb;
    }
    flush();
  }

  // Longer ones: the tiled engine, greedy groups (longest first) that fit the GPU.
  std::size_t pos = 0;
  while (pos < large.size()) {
    const int n0 = lengths[static_cast<std::size_t>(large[pos])];
    const int cb = knl::cell_bytes_for(n0, p);
    const bool rel = knl::relative_cells(n0, cb, p);
    std::vector<int> gl{n0};
    const std::size_t need0 = knl::tiled_bytes(gl, cb, device);
    if (need0 > budget)
      throw ResourceError(fmt::format(
          "Nussinov on the GPU: sequence {} ({} nt) needs {:.2f} GiB of GPU memory ({}-bit cells), but GPU {} has "
          "{:.2f} GiB free to use; fold it on the CPU or on a larger GPU",
          large[pos] + 1, n0, gib(need0), cb * 8, device, gib(budget)));
    // Device bytes grow by about tiled_bytes_added a sequence (its table, its share of both scratch
    // buffers, codes, bases, indices); the group is then checked with the exact estimate.
    std::size_t end = pos + 1, host = with_traceback ? table_bytes(n0, cb) : 0, need = need0;
    while (end < large.size()) {
      const int n = lengths[static_cast<std::size_t>(large[end])];
      if (knl::cell_bytes_for(n, p) != cb) break;  // narrower cells from here: a group of their own
      if (knl::relative_cells(n, cb, p) != rel) break;  // plain 16-bit cells from here (no bases to read)
      const std::size_t grow = knl::tiled_bytes_added(n, cb), t = table_bytes(n, cb);
      if (need + grow > budget) break;
      if (with_traceback && host + t > kHostTableBudget) break;
      need += grow;
      host += with_traceback ? t : 0;
      gl.push_back(n);
      ++end;
    }
    while (end > pos + 1 && knl::tiled_bytes(gl, cb, device) > budget) {  // the scratch's split target (tiled_bytes_added)
      gl.pop_back();
      --end;
    }
    std::vector<int> group(large.begin() + static_cast<std::ptrdiff_t>(pos), large.begin() + static_cast<std::ptrdiff_t>(end));
    run_group(false, seqs, lengths, group, p, cb, with_traceback, out, device);
    pos = end;
  }
  return out;
}

}  // namespace screen::nussinov
