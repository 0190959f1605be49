// Window bounds (lib/stages/bpmax/window_bounds.hpp's definition, shared with the CPU): one thread a target
// window, after launch_single_tables has written S2. Small work beside the tables (about n x L2 steps a
// window against the tables' N^3/6 x L2^2/2 updates a target base), so the plain loop of the definition.
#include "kernels/bpmax/bpmax_device.cuh"
#include "stages/bpmax/window_bounds.hpp"

namespace screen::kernels::bpmax {

using namespace detail;

namespace {

template <class Cell>
__global__ void __launch_bounds__(kBoundWindows) window_bounds_kernel(BatchView b, const std::int64_t* prefix,
                                                                      std::int32_t* out) {
  __shared__ int spare[screen::bpmax::kMaxBoundQuery];
  __shared__ std::uint8_t xq[screen::bpmax::kMaxBoundQuery];
  __shared__ PairTable table;
  const std::int64_t item = blockIdx.x;
  const int p = find_pair(prefix, b.npairs, item);
  const PairDesc pd = b.pairs[p];
  if (threadIdx.x == 0) table = b.table;
  if (static_cast<int>(threadIdx.x) < pd.n) xq[threadIdx.x] = b.codes[pd.x + threadIdx.x];
  __syncthreads();
  if (static_cast<int>(threadIdx.x) < pd.n)
    spare[threadIdx.x] = screen::bpmax::query_spare(xq, pd.n, static_cast<int>(threadIdx.x), table);
  __syncthreads();
  const int i2 = static_cast<int>(item - prefix[p]) * kBoundWindows + static_cast<int>(threadIdx.x);
  if (i2 + pd.l2 > pd.m) return;
  int col[screen::bpmax::kMaxBoundQuery + 1];
  const int q2 = screen::bpmax::matching_bound2(xq, pd.n, spare, b.codes + pd.z + i2, pd.l2, table, col);
  const Cell* s2 = static_cast<const Cell*>(b.s) + pd.s2;
  const int s2_window = s2[static_cast<std::int64_t>(i2) * row_cells(pd) + row_column(i2, pd.l2 - 1)];
  out[prefix[b.npairs + 1 + p] + i2] = screen::bpmax::window_bound(s2_window, q2);
}

}  // namespace

void launch_window_bounds(const BatchView& b, const std::int64_t* prefix, std::int64_t items, std::int32_t* out,
                          void* stream) {
  if (items == 0) return;
  by_cell(b.wide, [&](auto cell) {
    using Cell = decltype(cell);
    launch(window_bounds_kernel<Cell>, items, kBoundWindows, 0, stream, b, prefix, out);
  });
}

}  // namespace screen::kernels::bpmax
