// The Nussinov traceback on the GPU (nussinov_traceback.hpp): one block a sequence. Thread 0 walks the
// structure with traceback.hpp's trace_case, loading the four cells a step needs at once (one memory
// latency a step); at a bifurcation the whole block tests kTraceThreads split points at a time
// (is_split_at) and keeps the smallest that holds, as the host's upward scan would find.
#include "kernels/nussinov/nussinov_traceback.hpp"

#include <algorithm>
#include <climits>

#include "common/error.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "stages/nussinov/packed_layout.hpp"
#include "stages/nussinov/traceback.hpp"

namespace screen::kernels::nussinov {

namespace {

namespace packed = screen::nussinov::packed;
using screen::nussinov::is_split_at;
using screen::nussinov::trace_case;
using screen::nussinov::trace_stack_capacity;
using screen::nussinov::TraceCase;

constexpr int kTraceThreads = 128;
constexpr std::size_t kTileCells = static_cast<std::size_t>(packed::kTile) * packed::kTile;

// N(i, j) of one sequence's table: M(i, j + 1) in the half-open form; 0 for an empty interval.
template <class Cell, bool kRelative>
struct TableValue {
  const Cell* cells;
  const std::int32_t* base;
  int nt;
  __device__ int operator()(int i, int j) const {
    if (i > j) return 0;
    if constexpr (kRelative) return packed::relative_value(cells, base, i, j + 1, nt);
    else return static_cast<int>(__ldg(cells + packed::cell_offset(i, j + 1, nt)));
  }
};

struct TraceOut {
  const int* len;
  char* structure;             // sequence k's at structure + out_off[k]
  const std::size_t* out_off;
  int2* stack;                 // sequence k's at stack + stack_off[k], trace_stack_capacity(len[k]) entries
  const std::size_t* stack_off;
  int* failed;                 // failed[k] = 1 when sequence k's table does not reproduce its values
};

template <class Cell, bool kRelative>
__global__ void __launch_bounds__(kTraceThreads) traceback_kernel(DeviceTables t, TraceOut o, screen::nussinov::Params p,
                                                                  PairTable pt) {
  const int k = static_cast<int>(blockIdx.x), n = o.len[k];
  const std::size_t off = t.tab_off[k];
  const TableValue<Cell, kRelative> get{static_cast<const Cell*>(t.cells) + off, kRelative ? t.tile_base + off / kTileCells : nullptr,
                                        packed::tiles_per_side(n)};
  const std::uint8_t* const s = t.codes + t.code_off[k];
  char* const out = o.structure + o.out_off[k];
  int2* const stack = o.stack + o.stack_off[k];
  for (int c = static_cast<int>(threadIdx.x); c < n; c += kTraceThreads) out[c] = '.';
  __shared__ int s_i, s_j, s_v, s_split, s_search;
  int i = 0, j = n - 1, top = 0;  // thread 0's walk
  const int capacity = trace_stack_capacity(n);
  __syncthreads();  // the dots before thread 0's brackets
  while (true) {
    if (threadIdx.x == 0) {
      s_search = 0;
      while (true) {
        if (j - i <= p.min_loop) {
          if (top == 0) break;
          const int2 e = stack[--top];
          i = e.x;
          j = e.y;
          continue;
        }
        const int v = get(i, j), right = get(i + 1, j), left = get(i, j - 1), inner = get(i + 1, j - 1);
        const auto near = [&](int x, int y) { return x != i ? (y == j ? right : inner) : left; };
        const TraceCase c = trace_case(s, p, pt, i, j, v, near);
        if (c == TraceCase::i_unpaired) {
          ++i;
        } else if (c == TraceCase::j_unpaired) {
          --j;
        } else if (c == TraceCase::paired) {
          out[i] = '(';
          out[j] = ')';
          ++i;
          --j;
        } else {
          s_i = i;
          s_j = j;
          s_v = v;
          s_split = INT_MAX;
          s_search = 1;
          break;
        }
      }
    }
    __syncthreads();
    if (!s_search) break;
    const int si = s_i, sj = s_j, sv = s_v;
    for (int k0 = si + 1; k0 < sj; k0 += kTraceThreads) {
      const int kk = k0 + static_cast<int>(threadIdx.x);
      const bool hit = kk < sj && is_split_at(si, sj, kk, sv, get);
      if (hit) atomicMin(&s_split, kk);
      if (__syncthreads_or(hit)) break;  // every thread leaves at the same k0, s_split final
    }
    if (threadIdx.x == 0) {
      const int split = s_split;
      if (split == INT_MAX || top == capacity) {
        o.failed[k] = 1;
        top = 0;
        j = i;  // ends the walk
      } else {
        stack[top++] = make_int2(split + 1, j);
        j = split;
      }
    }
  }
}

}  // namespace

std::size_t trace_bytes(int n) {
  const auto nn = static_cast<std::size_t>(n > 0 ? n : 0);
  return nn + static_cast<std::size_t>(trace_stack_capacity(n > 0 ? n : 0)) * sizeof(int2) + 2 * sizeof(std::size_t) +
         2 * sizeof(int);
}

std::vector<std::string> trace_structures(const DeviceTables& t, const std::vector<int>& lengths,
                                          const screen::nussinov::Params& p) {
  const std::size_t count = lengths.size();
  std::vector<std::string> structures(count);
  if (count == 0) return structures;
  std::vector<std::size_t> out_off(count), stack_off(count);
  std::size_t chars = 0, entries = 0;
  for (std::size_t k = 0; k < count; ++k) {
    out_off[k] = chars;
    stack_off[k] = entries;
    chars += static_cast<std::size_t>(lengths[k]);
    entries += static_cast<std::size_t>(trace_stack_capacity(lengths[k]));
  }
  gpu::DeviceBuffer<int> dlen, dfailed(count);
  gpu::DeviceBuffer<std::size_t> dout_off, dstack_off;
  gpu::DeviceBuffer<char> dout(std::max<std::size_t>(chars, 1));
  gpu::DeviceBuffer<int2> dstack(std::max<std::size_t>(entries, 1));
  dlen.upload(lengths);
  dout_off.upload(out_off);
  dstack_off.upload(stack_off);
  dfailed.fill_zero();
  const TraceOut o{dlen.get(), dout.get(), dout_off.get(), dstack.get(), dstack_off.get(), dfailed.get()};
  const PairTable pt = make_pair_table(p.weights);
  const unsigned blocks = static_cast<unsigned>(count);
  if (t.cell_bytes == 2 && t.tile_base) traceback_kernel<std::int16_t, true><<<blocks, kTraceThreads>>>(t, o, p, pt);
  else if (t.cell_bytes == 2) traceback_kernel<std::int16_t, false><<<blocks, kTraceThreads>>>(t, o, p, pt);
  else traceback_kernel<std::int32_t, false><<<blocks, kTraceThreads>>>(t, o, p, pt);
  CUDA_CHECK_LAUNCH();
  const std::vector<int> failed = dfailed.to_host();  // synchronizes
  std::vector<char> all(chars);
  dout.download(all.data(), chars);
  CUDA_CHECK(cudaDeviceSynchronize());
  for (std::size_t k = 0; k < count; ++k) {
    if (failed[k])
      throw Error(ExitCode::internal, "nussinov GPU traceback: table is inconsistent with the recurrence (sequence of " +
                                          std::to_string(lengths[k]) + " nt)");
    structures[k].assign(all.data() + out_off[k], static_cast<std::size_t>(lengths[k]));
  }
  return structures;
}

}  // namespace screen::kernels::nussinov
