// Host side of the BPMax GPU path (cuda.hpp): batches of pairs by memory, the launches of
// kernels/bpmax/ in their order, the sites, and tracebacks recomputed on the host from each site's
// own window (site_traceback.hpp).
#include "stages/bpmax/cuda.hpp"

#include <cuda_runtime.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/error.hpp"
#include "common/work_profile.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/stream.hpp"
#include "gpu/device_info.hpp"
#include "kernels/bpmax/bpmax_launch.hpp"
#include "stages/bpmax/cpu.hpp"
#include "stages/bpmax/repeated_slabs.hpp"
#include "stages/bpmax/site_traceback.hpp"
#include "stages/bpmax/window_bounds.hpp"
#include "stages/bpmax/window_pruning.hpp"

namespace screen::bpmax {

namespace kb = screen::kernels::bpmax;

namespace {

constexpr int kAlign = 8;  // cells: row strides are multiples of this (16-byte rows for int16)

int round_up(int v, int k) { return (v + k - 1) / k * k; }

// Whether a pair's scores fit the 16-bit tables (kernels/bpmax/bpmax_launch.hpp).
bool fits_16bit(const Band& b, const Params& p) { return max_possible_score(b.l1, b.l2, p.weights) <= kb::kMax16; }

// F slabs: M rows of f_row_cells(L2) cells per query interval (kernels/bpmax/bpmax_launch.hpp).
std::size_t f_cells(const Band& b) {
  return static_cast<std::size_t>(query_interval_count(b.n, b.l1)) * static_cast<std::size_t>(b.m) *
         static_cast<std::size_t>(kb::f_row_cells(b.l2));
}
// S1 by diagonal rows, S2 in the slabs' layout (kernels/bpmax/bpmax_launch.hpp).
std::size_t s_cells(const Band& b) {
  return static_cast<std::size_t>(b.l1) * static_cast<std::size_t>(round_up(b.n, kAlign)) +
         static_cast<std::size_t>(b.m) * static_cast<std::size_t>(kb::f_row_cells(b.l2));
}

using gpu::EventPair;
using gpu::Stream;

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The site of one pair from the kernel's output, as find_site reports it.
SiteResult site_from(const Band& b, const kb::SiteOut& o) {
  SiteResult r;
  r.score = o.score;
  r.site_i1 = o.i1;
  r.site_i2 = o.i2;
  r.query_begin = o.i1 + 1;
  r.query_end = o.i1 + b.l1;
  r.target_begin = target_begin_1based(b.m, o.i2 + b.l2 - 1);
  r.target_end = target_end_1based(b.m, o.i2);
  if (b.l1 == b.n && b.l2 == b.m) r.full = r.score;
  if (b.l1 == b.n) r.query_single = o.query_single;
  if (b.l2 == b.m) r.target_single = o.target_single;
  return r;
}

// One batch of pairs with one cell width, on the device.
struct BatchPlan {
  std::vector<std::size_t> pairs;  // indices into the caller's pairs
  bool wide = false;
  std::size_t f_cells = 0, s_cells = 0, codes = 0;
};

// The work of one distinct query of a batch (its bases and window), shared by its pairs.
struct QueryWork {
  RepeatedSlabs repeats;
  // [2 d1 + g]: the query starts i1 of the slabs of length d1 to compute in group g (0 early, 1 late; see
  // GpuRunner::run), ascending; empty for d1 >= the query's window.
  std::vector<std::vector<int>> starts;
};

// The slabs of each d1 in two groups by their query end j1 = i1 + d1: the early group (j1 < split) and the
// late one. A slab's double reduction reads only slabs with smaller d1 that end at or before its own end,
// so the early group never reads the late one (GpuRunner::run runs them on two streams). The split balances
// the two groups' term-1 work (the k1 steps of their slabs); with slab_groups = 1 every slab is early.
// Only first occurrences are computed (repeated_slabs.hpp): a repeat's first occurrence starts before it
// and so ends before it too, in the same group or the early one, which the late group waits for; so the
// groups' order of reads holds for the slabs a repeat is read from.
QueryWork query_work_of(const std::uint8_t* codes, int n, int l1, int max_l1, int slab_groups) {
  QueryWork w;
  w.repeats = repeated_slabs(codes, n, l1);
  auto work_ending_at = [&](int j) {  // k1 steps of the slabs (j - d1, j), d1 < l1: 1 + 2 + ... + t
    const long long t = std::min(l1 - 1, j);
    return t * (t + 1) / 2;
  };
  long long total = 0;
  for (int j = 0; j < n; ++j) total += work_ending_at(j);
  int split = 0;
  for (long long done = 0; split < n && 2 * done < total; ++split) done += work_ending_at(split);
  if (slab_groups <= 1) split = n;
  w.starts.resize(2 * static_cast<std::size_t>(max_l1));
  for (int d1 = 0; d1 < l1; ++d1)
    for (const int i1 : w.repeats.firsts[static_cast<std::size_t>(d1)])
      w.starts[2 * static_cast<std::size_t>(d1) + (i1 + d1 >= split ? 1 : 0)].push_back(i1);
  return w;
}

// The distinct queries of a plan's pairs (by bases and window), and each pair's among them.
std::vector<QueryWork> query_work(const std::vector<PairInput>& all, const BatchPlan& plan,
                                  const std::vector<Band>& bands, int max_l1, int slab_groups,
                                  std::vector<std::size_t>& query_of) {
  std::vector<QueryWork> out;
  std::unordered_map<std::string, std::size_t> seen;
  query_of.assign(plan.pairs.size(), 0);
  for (std::size_t k = 0; k < plan.pairs.size(); ++k) {
    const PairInput& in = all[plan.pairs[k]];
    const Band& b = bands[k];
    std::string key(reinterpret_cast<const char*>(in.query.codes), static_cast<std::size_t>(b.n));
    key.append(reinterpret_cast<const char*>(&b.l1), sizeof b.l1);
    const auto [it, fresh] = seen.emplace(std::move(key), out.size());
    if (fresh) out.push_back(query_work_of(in.query.codes, b.n, b.l1, max_l1, slab_groups));
    query_of[k] = it->second;
  }
  return out;
}

class GpuRunner {
 public:
  explicit GpuRunner(const Params& p) : params_(p), table_(make_pair_table(p.weights)) {}

  const Params& params() const { return params_; }
  std::size_t bytes() const {
    return f_.bytes() + s_.bytes() + slabs_.bytes() + codes_.bytes() + pairs_.bytes() + prefix_.bytes() + sites_.bytes() +
           bounds_.bytes();
  }

  // Scores the batch; sites into out[pairs[k]]. max_shared: the device's shared memory per block;
  // slab_groups: 2 runs the slabs in two groups on two streams (below), 1 all on one stream.
  // The plan's pairs as descriptors (F and S offsets, codes with each target reversed); returns the F cells,
  // and leaves the S cells in s_end_.
  std::int64_t describe(const std::vector<PairInput>& all, const BatchPlan& plan, std::vector<kb::PairDesc>& desc,
                        std::vector<Band>& bands, std::vector<std::uint8_t>& codes, int& max_l1, int& max_l2) {
    const std::size_t np = plan.pairs.size();
    desc.assign(np, kb::PairDesc{});
    bands.assign(np, Band{});
    codes.clear();
    codes.reserve(plan.codes);
    std::int64_t f = 0, s = 0;
    max_l1 = max_l2 = 0;
    for (std::size_t k = 0; k < np; ++k) {
      const PairInput& in = all[plan.pairs[k]];
      const Band b = make_band(in.query.length, in.target.length, params_);
      bands[k] = b;
      kb::PairDesc& d = desc[k];
      d.n = b.n;
      d.m = b.m;
      d.l1 = b.l1;
      d.l2 = b.l2;
      d.stride1 = round_up(b.n, kAlign);
      d.f = f;
      f += static_cast<std::int64_t>(f_cells(b));
      d.s1 = s;
      d.s2 = s + static_cast<std::int64_t>(b.l1) * d.stride1;
      s += static_cast<std::int64_t>(s_cells(b));
      d.x = static_cast<std::int64_t>(codes.size());
      codes.insert(codes.end(), in.query.codes, in.query.codes + b.n);
      d.z = static_cast<std::int64_t>(codes.size());
      for (int t = 0; t < b.m; ++t) codes.push_back(in.target.codes[reversed_index(b.m, t)]);
      max_l1 = std::max(max_l1, b.l1);
      max_l2 = std::max(max_l2, b.l2);
    }
    s_end_ = s;
    return f;
  }

  // The device view of the batch last described and uploaded (its F buffer and patch-up width left unset).
  kb::BatchView view(std::size_t np, int max_l1, int max_l2, bool wide) const {
    kb::BatchView v;
    v.pairs = pairs_.get();
    v.npairs = static_cast<int>(np);
    v.max_l1 = max_l1;
    v.max_l2 = max_l2;
    v.codes = codes_.get();
    v.s = s_.get();
    v.wide = wide;
    v.table = table_;
    return v;
  }

  // The window bounds (window_bounds.hpp) of the plan's pairs into out[plan.pairs[k]]: S1 and S2, then one
  // thread a window. The plan's F cells are not needed.
  void bounds(const std::vector<PairInput>& all, const BatchPlan& plan, std::vector<std::vector<std::int32_t>>& out,
              GpuStats& stats) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t np = plan.pairs.size();
    std::vector<kb::PairDesc> desc;
    std::vector<Band> bands;
    std::vector<std::uint8_t> codes;
    int max_l1 = 0, max_l2 = 0;
    describe(all, plan, desc, bands, codes, max_l1, max_l2);
    const std::size_t cell = plan.wide ? 4 : 2;
    ensure(s_, static_cast<std::size_t>(s_end_) * cell);
    codes_.upload(codes, stream_.get());
    pairs_.upload(desc, stream_.get());
    std::vector<std::int64_t> prefix{0};
    for (std::size_t k = 0; k < np; ++k) {
      prefix.push_back(prefix.back() + kb::tiles_across(bands[k].n, kb::single_tile_width()));
      prefix.push_back(prefix.back() + kb::tiles_across(bands[k].m, kb::single_tile_width()));
    }
    const std::int64_t single_items = prefix.back();
    const std::size_t at = prefix.size();
    prefix.push_back(0);
    for (std::size_t k = 0; k < np; ++k) prefix.push_back(prefix.back() + kb::bound_blocks(bands[k].m, bands[k].l2));
    const std::int64_t bound_items = prefix.back();
    std::int64_t windows = 0;
    std::vector<std::int64_t> first(np);
    for (std::size_t k = 0; k < np; ++k) {
      first[k] = windows;
      prefix.push_back(windows);
      windows += bands[k].m - bands[k].l2 + 1;
    }
    prefix_.upload(prefix, stream_.get());
    ensure(bounds_, static_cast<std::size_t>(windows));
    const kb::BatchView v = view(np, max_l1, max_l2, plan.wide);
    EventPair single, bound;
    stats.prepare_ms += ms_since(t0);
    single.start(stream_.get());
    kb::launch_single_tables(v, prefix_.get(), single_items, stream_.get());
    single.stop(stream_.get());
    bound.start(stream_.get());
    kb::launch_window_bounds(v, prefix_.get() + at, bound_items, bounds_.get(), stream_.get());
    bound.stop(stream_.get());
    std::vector<std::int32_t> host(static_cast<std::size_t>(windows));
    // A copy into pageable memory returns only when the stream has drained, so the wait starts before it.
    const auto t_wait = std::chrono::steady_clock::now();
    bounds_.download(host.data(), host.size(), stream_.get());
    CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    stats.wait_ms += ms_since(t_wait);
    stats.single_ms += single.ms();
    stats.bounds_ms += bound.ms();
    stats.kernel_ms += single.ms() + bound.ms();
    stats.launches += 2;
    for (std::size_t k = 0; k < np; ++k) {
      const auto b0 = host.begin() + first[k];
      out[plan.pairs[k]].assign(b0, b0 + (bands[k].m - bands[k].l2 + 1));
    }
  }

  void run(const std::vector<PairInput>& all, const BatchPlan& plan, std::size_t max_shared, int slab_groups,
           std::vector<PairResult>& out, GpuStats& stats) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t np = plan.pairs.size();
    std::vector<kb::PairDesc> desc;
    std::vector<Band> bands;
    std::vector<std::uint8_t> codes;
    int max_l1 = 0, max_l2 = 0;
    const std::int64_t f = describe(all, plan, desc, bands, codes, max_l1, max_l2), s = s_end_;
    stats.describe_ms += ms_since(t0);
    auto t_part = std::chrono::steady_clock::now();
    // The pairs of one query share its repeated-slab map, its split into the two slab groups (query_work_of) and its
    // slabs' starts in every work list: each is built and uploaded once per distinct query of the batch (a
    // screen batch holds thousands of targets, or target segments, for a few queries).
    std::vector<std::size_t> query_of;  // [k]: the pair's index in queries
    const std::vector<QueryWork> queries = query_work(all, plan, bands, max_l1, slab_groups, query_of);
    std::size_t slab_map = 0;
    std::vector<std::size_t> map_at(queries.size());
    for (std::size_t q = 0; q < queries.size(); ++q) {
      map_at[q] = slab_map;
      slab_map += queries[q].repeats.slab.size();
    }
    for (std::size_t k = 0; k < np; ++k) {
      const RepeatedSlabs& r = queries[query_of[k]].repeats;
      stats.slabs += r.intervals();
      stats.slabs_computed += r.computed();
    }
    const std::size_t cell = plan.wide ? 4 : 2;
    stats.lists_ms += ms_since(t_part);
    t_part = std::chrono::steady_clock::now();
    const std::size_t f_bytes = static_cast<std::size_t>(f) * cell, s_bytes = static_cast<std::size_t>(s) * cell;
    ensure(f_, f_bytes);
    ensure(s_, s_bytes);
    ensure(slabs_, slab_map);
    {
      std::vector<std::int32_t> maps;
      maps.reserve(slab_map);
      for (const QueryWork& q : queries) maps.insert(maps.end(), q.repeats.slab.begin(), q.repeats.slab.end());
      for (std::size_t k = 0; k < np; ++k) desc[k].slabs = slabs_.get() + map_at[query_of[k]];
      slabs_.upload(maps, stream_.get());
    }
    codes_.upload(codes, stream_.get());
    pairs_.upload(desc, stream_.get());
    stats.upload_ms += ms_since(t_part);
    t_part = std::chrono::steady_clock::now();

    // Work lists: prefix counts per pair (strand) for every launch.
    const int t1 = kb::term1_tile_width(), tp = kb::patch_tile_width(max_l2, plan.wide, max_shared), ts = kb::single_tile_width();
    // [single: 2 np + 1][per d1, early then late group: term1 2 np + 1, patch 2 np + 1 (add_list, below)]
    std::vector<std::int64_t> prefix;
    prefix.push_back(0);
    for (std::size_t k = 0; k < np; ++k) {
      prefix.push_back(prefix.back() + kb::tiles_across(bands[k].n, ts));
      prefix.push_back(prefix.back() + kb::tiles_across(bands[k].m, ts));
    }
    const std::int64_t single_items = prefix.back();
    // One launch's work list (bpmax_launch.hpp): prefix counts of the (slab, tile) items of the group's
    // slabs of length d1, tiles `width` columns wide, then where each pair's query starts are, then those
    // starts, once per distinct query (its pairs point at the same ones). Positions are relative to the
    // list's first entry, where the launch's pointer starts.
    struct Lists {
      std::int64_t term1 = 0, patch = 0;  // items
      std::size_t term1_at = 0, patch_at = 0;  // offsets into prefix
    };
    std::vector<std::int64_t> where_q(queries.size());
    auto add_list = [&](std::size_t list, int width, std::int64_t& items) {
      const std::size_t at = prefix.size();
      prefix.push_back(0);
      for (std::size_t k = 0; k < np; ++k)
        prefix.push_back(prefix.back() + static_cast<std::int64_t>(queries[query_of[k]].starts[list].size()) *
                                             kb::tiles_across(bands[k].m, width));
      items = prefix.back();
      std::int64_t where = static_cast<std::int64_t>(prefix.size() - at + np);
      for (std::size_t q = 0; q < queries.size(); ++q) {
        where_q[q] = where;
        where += static_cast<std::int64_t>(queries[q].starts[list].size());
      }
      for (std::size_t k = 0; k < np; ++k) prefix.push_back(where_q[query_of[k]]);
      for (const QueryWork& q : queries) prefix.insert(prefix.end(), q.starts[list].begin(), q.starts[list].end());
      return at;
    };
    std::vector<Lists> lists(2 * static_cast<std::size_t>(max_l1));  // [d1][early, late]
    for (int d1 = 0; d1 < max_l1; ++d1)
      for (int g = 0; g < 2; ++g) {
        Lists& l = lists[2 * static_cast<std::size_t>(d1) + static_cast<std::size_t>(g)];
        const std::size_t list = 2 * static_cast<std::size_t>(d1) + static_cast<std::size_t>(g);
        l.term1_at = add_list(list, t1, l.term1);
        l.patch_at = add_list(list, tp, l.patch);
      }
    stats.lists_ms += ms_since(t_part);
    t_part = std::chrono::steady_clock::now();
    prefix_.upload(prefix, stream_.get());
    stats.upload_ms += ms_since(t_part);

    kb::BatchView v = view(np, max_l1, max_l2, plan.wide);
    v.f = f_.get();
    v.patch_width = tp;
    v.term1_landing = kb::term1_landing(max_l2, plan.wide, max_shared);

    // Events around every launch: the statistics split the kernels' time by kind (summed over launches,
    // which overlap between the two streams); `all` spans the batch's kernels.
    const std::size_t nev = 2 + 4 * static_cast<std::size_t>(max_l1);
    std::vector<EventPair> ev(nev);
    EventPair all_kernels;
    cudaStream_t st = stream_.get(), late = late_stream_.get();
    std::size_t e = 0;
    stats.prepare_ms += ms_since(t0);
    all_kernels.start(st);
    ev[e].start(st);
    kb::launch_single_tables(v, prefix_.get(), single_items, st);
    ev[e++].stop(st);
    int launches = 1;
    early_done_.resize(static_cast<std::size_t>(max_l1) + 1);
    early_done_[0].record(st);  // the single tables
    for (int d1 = 0; d1 < max_l1; ++d1) {
      for (int g = 0; g < 2; ++g) {
        const Lists& l = lists[2 * static_cast<std::size_t>(d1) + static_cast<std::size_t>(g)];
        cudaStream_t on = g == 0 ? st : late;
        if (g == 1) CUDA_CHECK(cudaStreamWaitEvent(late, early_done_[static_cast<std::size_t>(d1)].get(), 0));
        ev[e].start(on);
        kb::launch_double_reduction(v, d1, prefix_.get() + l.term1_at, l.term1, on);
        ev[e++].stop(on);
        ev[e].start(on);
        kb::launch_patch_up(v, d1, prefix_.get() + l.patch_at, l.patch, on);
        ev[e++].stop(on);
        if (g == 0) early_done_[static_cast<std::size_t>(d1) + 1].record(st);  // the early group's d1
        launches += (l.term1 > 0) + (l.patch > 0);
      }
    }
    late_done_.record(late);
    CUDA_CHECK(cudaStreamWaitEvent(st, late_done_.get(), 0));
    ensure_sites(np);
    ev[e].start(st);
    kb::launch_sites(v, sites_.get(), st);
    ev[e++].stop(st);
    all_kernels.stop(st);
    ++launches;
    std::vector<kb::SiteOut> sites(np);
    const auto t_wait = std::chrono::steady_clock::now();
    sites_.download(sites.data(), np, stream_.get());
    CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    stats.wait_ms += ms_since(t_wait);
    stats.single_ms += ev[0].ms();
    for (int d1 = 0; d1 < max_l1; ++d1)
      for (std::size_t g = 0; g < 2; ++g) {
        const std::size_t at = 1 + 4 * static_cast<std::size_t>(d1) + 2 * g;
        stats.term1_ms += ev[at].ms();
        stats.patch_ms += ev[at + 1].ms();
      }
    stats.kernel_ms += all_kernels.ms();
    stats.launches += launches;
    for (std::size_t k = 0; k < np; ++k) {
      PairResult& r = out[plan.pairs[k]];
      r.query_index = all[plan.pairs[k]].query_index;
      r.target_index = all[plan.pairs[k]].target_index;
      r.site = site_from(bands[k], sites[k]);
    }
  }

 private:
  template <class T>
  static void ensure(gpu::DeviceBuffer<T>& b, std::size_t count) {
    if (b.size() < count) b.allocate(count);
  }
  void ensure_sites(std::size_t np) {
    if (sites_.size() < np) sites_.allocate(np);
  }

  Params params_;
  PairTable table_;
  Stream stream_, late_stream_;   // the early slabs (and everything else), the late slabs
  std::vector<gpu::Event> early_done_;  // [d1]: the early group's slabs below d1 are done (0: the single tables)
  gpu::Event late_done_;
  gpu::DeviceBuffer<unsigned char> f_, s_;
  gpu::DeviceBuffer<std::int32_t> slabs_;  // the pairs' maps of repeated query substrings (PairDesc::slabs)
  gpu::DeviceBuffer<std::uint8_t> codes_;
  gpu::DeviceBuffer<kb::PairDesc> pairs_;
  gpu::DeviceBuffer<std::int64_t> prefix_;
  gpu::DeviceBuffer<kb::SiteOut> sites_;
  gpu::DeviceBuffer<std::int32_t> bounds_;  // window bounds (window_pruning.hpp)
  std::int64_t s_end_ = 0;                  // S cells of the last plan described
};

bool same_params(const Params& a, const Params& b) {
  return a.weights.cg == b.weights.cg && a.weights.au == b.weights.au && a.weights.gu == b.weights.gu &&
         a.weights.scale == b.weights.scale && a.query_window == b.query_window && a.target_window == b.target_window;
}

}  // namespace

struct GpuBuffers::Impl {
  int device = -1;
  std::unique_ptr<GpuRunner> runner;
};

GpuBuffers::GpuBuffers() : impl(std::make_unique<Impl>()) {}
GpuBuffers::~GpuBuffers() = default;
void GpuBuffers::release() { impl->runner.reset(); }
std::size_t GpuBuffers::bytes() const { return impl->runner ? impl->runner->bytes() : 0; }

bool gpu_available() { return gpu::built_with_cuda() && gpu::gpu_count() > 0; }

std::size_t gpu_table_bytes(int n, int m, const Params& p) {
  const Band b = make_band(std::max(n, 0), std::max(m, 0), p);
  if (b.n == 0 || b.m == 0) return 0;
  const std::size_t cell = fits_16bit(b, p) ? 2 : 4;
  return cell * (f_cells(b) + s_cells(b)) + static_cast<std::size_t>(b.n + b.m) +
         sizeof(std::int32_t) * static_cast<std::size_t>(query_interval_count(b.n, b.l1));  // PairDesc::slabs
}

GpuScores score_pairs_gpu(const std::vector<PairInput>& pairs, const Params& p, TracebackMode traceback,
                          const GpuOptions& options, GpuStats* stats) {
  if (!gpu_available()) throw ResourceError("BPMax on the GPU: " + gpu::no_gpu_reason());
  const auto t_start = std::chrono::steady_clock::now();
  GpuStats local;
  GpuStats& st = stats ? *stats : local;
  CUDA_CHECK(cudaSetDevice(options.device));
  // The runner: the caller's kept one (its buffers count as free memory for the budget), or one of
  // this call's own.
  std::unique_ptr<GpuRunner> own;
  GpuRunner* runner = nullptr;
  if (options.buffers) {
    GpuBuffers::Impl& kept = *options.buffers->impl;
    if (!kept.runner || kept.device != options.device || !same_params(kept.runner->params(), p)) {
      kept.runner.reset();
      kept.runner = std::make_unique<GpuRunner>(p);
      kept.device = options.device;
    }
    runner = kept.runner.get();
  } else {
    own = std::make_unique<GpuRunner>(p);
    runner = own.get();
  }
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  // Beside its F and S tables a batch allocates codes, descriptors, work lists and sites: planning_budget
  // keeps a reserve for them however large the fraction.
  const std::size_t budget = gpu::planning_budget(free_bytes + runner->bytes(), total_bytes,
                                                  std::clamp(options.memory_fraction, 0.05, 1.0), options.max_bytes);
  const std::size_t device_shared = kb::max_shared_bytes(options.device);
  const PairTable pair_table = make_pair_table(p.weights);
  const std::size_t max_shared =
      options.max_shared_bytes > 0 ? std::min(options.max_shared_bytes, device_shared) : device_shared;

  // Route: the GPU (each pair's windows pruned when it can be, window_pruning.hpp), or the CPU.
  std::vector<std::size_t> cpu, direct, pruned;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const Band b = make_band(std::max(pairs[k].query.length, 0), std::max(pairs[k].target.length, 0), p);
    if (b.n == 0 || b.m == 0) {
      cpu.push_back(k);
      continue;
    }
    const std::size_t cell = fits_16bit(b, p) ? 2 : 4;
    if (gpu_table_bytes(b.n, b.m, p) > budget ||
        kb::shared_bytes_needed(b.l1, b.l2, static_cast<int>(cell)) > max_shared) {
      cpu.push_back(k);
      continue;
    }
    (options.prune_windows && prunable(b, pair_table) ? pruned : direct).push_back(k);
  }
  // GPU batches of the listed pairs (every one fits), by cell width in input order, cut by the budget; with
  // tables = false only the S tables count (the bounds' batches).
  auto batches_of = [&](const std::vector<PairInput>& list, const std::vector<std::size_t>& which, bool tables) {
    BatchPlan narrow, wide;
    std::vector<BatchPlan> batches;
    auto flush = [&](BatchPlan& b) {
      if (!b.pairs.empty()) batches.push_back(std::move(b));
      b = BatchPlan{};
    };
    for (const std::size_t k : which) {
      const Band b = make_band(list[k].query.length, list[k].target.length, p);
      const bool w = !fits_16bit(b, p);
      const std::size_t cell = w ? 4 : 2, fc = tables ? f_cells(b) : 0;
      BatchPlan& into = w ? wide : narrow;
      into.wide = w;
      if (!into.pairs.empty() && (into.f_cells + fc + into.s_cells + s_cells(b)) * cell > budget) flush(into), into.wide = w;
      into.pairs.push_back(k);
      into.f_cells += fc;
      into.s_cells += s_cells(b);
      into.codes += static_cast<std::size_t>(b.n + b.m);
    }
    flush(narrow);
    flush(wide);
    return batches;
  };
  auto every = [](std::size_t n) {
    std::vector<std::size_t> v(n);
    for (std::size_t k = 0; k < n; ++k) v[k] = k;
    return v;
  };

  std::vector<PairResult> out(pairs.size());
  const double kernel_ms_before = st.kernel_ms;
  {
    const double kernel_ms = st.kernel_ms;
    for (const BatchPlan& b : batches_of(pairs, direct, true)) runner->run(pairs, b, max_shared, options.slab_groups, out, st);
    if (!pruned.empty()) {
      const auto t_prune = std::chrono::steady_clock::now();
      double in_callbacks_ms = 0;
      std::vector<PairInput> list;
      for (const std::size_t k : pruned) list.push_back(pairs[k]);
      const WindowBoundsFn bounds = [&](const std::vector<PairInput>& ps) {
        const auto t_cb = std::chrono::steady_clock::now();
        std::vector<std::vector<std::int32_t>> ub(ps.size());
        for (const BatchPlan& b : batches_of(ps, every(ps.size()), false)) runner->bounds(ps, b, ub, st);
        in_callbacks_ms += ms_since(t_cb);
        return ub;
      };
      const SitesFn sites = [&](const std::vector<PairInput>& ps) {
        const auto t_cb = std::chrono::steady_clock::now();
        std::vector<PairResult> r(ps.size());
        for (const BatchPlan& b : batches_of(ps, every(ps.size()), true))
          runner->run(ps, b, max_shared, options.slab_groups, r, st);
        std::vector<SiteResult> s(ps.size());
        for (std::size_t k = 0; k < ps.size(); ++k) s[k] = std::move(r[k].site);
        in_callbacks_ms += ms_since(t_cb);
        return s;
      };
      std::vector<SiteResult> got = score_pruned(list, p, bounds, sites, &st.pruning);
      st.prune_host_ms += ms_since(t_prune) - in_callbacks_ms;
      for (std::size_t k = 0; k < pruned.size(); ++k) {
        PairResult& r = out[pruned[k]];
        r.query_index = pairs[pruned[k]].query_index;
        r.target_index = pairs[pruned[k]].target_index;
        r.site = std::move(got[k]);
      }
    }
    st.gpu_pairs += direct.size() + pruned.size();
    work_profile::add_gpu((st.kernel_ms - kernel_ms) / 1000.0);  // the kernels (events), for the run profile
  }
  own.reset();
  // The GPU pairs whose score the mode asks a traceback for (trace_gpu_sites).
  GpuScores scores;
  for (const auto* list : {&direct, &pruned})
    for (const std::size_t k : *list)
      if (traceback.wants(out[k].site.score)) scores.to_trace.push_back(k);
  std::sort(scores.to_trace.begin(), scores.to_trace.end());
  // The rest on the CPU.
  if (!cpu.empty()) {
    std::vector<PairInput> rest;
    for (std::size_t k : cpu) rest.push_back(pairs[k]);
    std::vector<PairResult> r = interact_pairs(rest, p, traceback, Method::automatic, options.cpu_threads);
    for (std::size_t k = 0; k < cpu.size(); ++k) out[cpu[k]] = std::move(r[k]);
    st.cpu_pairs += cpu.size();
  }
  scores.results = std::move(out);
  spdlog::debug("bpmax gpu batch: {} pairs ({} on the CPU), {:.3f} s, of which kernels {:.3f} s",
                pairs.size(), cpu.size(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count(),
                (st.kernel_ms - kernel_ms_before) / 1000.0);
  return scores;
}

std::vector<std::vector<std::int32_t>> window_upper_bounds_gpu(const std::vector<PairInput>& pairs, const Params& p,
                                                              const GpuOptions& options) {
  if (!gpu_available()) throw ResourceError("BPMax on the GPU: " + gpu::no_gpu_reason());
  CUDA_CHECK(cudaSetDevice(options.device));
  GpuRunner runner(p);
  std::vector<std::vector<std::int32_t>> out(pairs.size());
  for (const bool wide : {false, true}) {
    BatchPlan plan;
    plan.wide = wide;
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      const Band b = make_band(pairs[k].query.length, pairs[k].target.length, p);
      if (b.n < 1 || b.n > kMaxBoundQuery || b.m < b.l2) throw UsageError("window_upper_bounds_gpu: a pair without bounds");
      if (fits_16bit(b, p) == wide) continue;
      plan.pairs.push_back(k);
      plan.codes += static_cast<std::size_t>(b.n + b.m);
    }
    GpuStats st;
    if (!plan.pairs.empty()) runner.bounds(pairs, plan, out, st);
  }
  return out;
}

void trace_gpu_sites(const std::vector<PairInput>& pairs, const Params& p, GpuScores& scores, int threads) {
  const long long n = static_cast<long long>(scores.to_trace.size());
  const int t = threads > 0 ? threads : omp_get_max_threads();
  const work_profile::TracebackTimer traceback_time;
#pragma omp parallel for schedule(dynamic, 1) num_threads(t) if (t > 1 && n > 1)
  for (long long i = 0; i < n; ++i) {
    const std::size_t k = scores.to_trace[static_cast<std::size_t>(i)];
    scores.results[k].site.structure = trace_site_window(pairs[k], p, scores.results[k].site);
  }
}

std::vector<PairResult> interact_pairs_gpu(const std::vector<PairInput>& pairs, const Params& p,
                                           TracebackMode traceback, const GpuOptions& options, GpuStats* stats) {
  GpuScores scores = score_pairs_gpu(pairs, p, traceback, options, stats);
  trace_gpu_sites(pairs, p, scores, options.cpu_threads);
  return std::move(scores.results);
}

}  // namespace screen::bpmax
