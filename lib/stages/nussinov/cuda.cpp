// Host side of the Nussinov CUDA path: memory planning and grouping. The kernels, and the traceback on
// the GPU over each fold's tile-packed table (traceback.hpp's cases), are kernels/nussinov/.
#include "stages/nussinov/cuda.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "common/error.hpp"
#include "common/work_profile.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_info.hpp"
#include "kernels/nussinov/nussinov_launch.hpp"

namespace screen::nussinov {
namespace knl = screen::kernels::nussinov;

namespace {

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
    // Synchronous: the kernels, and with structures the traceback on the GPU and their copy back.
    const work_profile::GpuSectionTimer gpu_time;
    const knl::FoldOutput what = with_traceback ? knl::FoldOutput::structures : knl::FoldOutput::scores;
    if (small) knl::smem_fold(gs, gl, p, cell_bytes, what, g, device);
    else knl::tiled_fold(gs, gl, p, cell_bytes, what, g, device);
  }
  for (std::size_t k = 0; k < idx.size(); ++k) {
    auto& r = out[static_cast<std::size_t>(idx[k])];
    r.score = g.scores[k];
    if (with_traceback) r.structure = std::move(g.structures[k]);
  }
  spdlog::debug("nussinov gpu group: {} sequences, longest {} nt, {} path: {:.3f} s on the GPU{}", gs.size(),
                gl.empty() ? 0 : *std::max_element(gl.begin(), gl.end()), small ? "shared-memory" : "tiled",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                with_traceback ? " (structures traced there)" : "");
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
    const knl::FoldOutput what = with_traceback ? knl::FoldOutput::structures : knl::FoldOutput::scores;
    std::vector<int> group;
    std::vector<int> gl;
    auto flush = [&] {
      if (!group.empty()) run_group(true, seqs, lengths, group, p, cb, with_traceback, out, device);
      group.clear();
      gl.clear();
    };
    for (int k : small) {
      gl.push_back(lengths[static_cast<std::size_t>(k)]);
      if (!group.empty() && knl::smem_bytes(gl, cb, what) > budget) {
        const int n = gl.back();
        gl.pop_back();
        flush();
        gl.push_back(n);
      }
      group.push_back(k);
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
    std::size_t end = pos + 1, need = need0;
    while (end < large.size()) {
      const int n = lengths[static_cast<std::size_t>(large[end])];
      if (knl::cell_bytes_for(n, p) != cb) break;  // narrower cells from here: a group of their own
      if (knl::relative_cells(n, cb, p) != rel) break;  // plain 16-bit cells from here (no bases to read)
      const std::size_t grow = knl::tiled_bytes_added(n, cb);
      if (need + grow > budget) break;
      need += grow;
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
