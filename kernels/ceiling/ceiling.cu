// The register-tiled max-plus step alone, in four instruction forms (ceiling_launch.hpp).
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <random>
#include <type_traits>

#include "common/error.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/stream.hpp"
#include "kernels/ceiling/ceiling_launch.hpp"

namespace screen::kernels::ceiling {

namespace {

constexpr int kMt = 8;  // micro-tile edge
// Shared memory a multiprocessor gives its blocks (H100: 228 KB, of which each block's launch reserves 1 KB):
// a block asks for its share of it, so that exactly Shape::blocks_per_sm blocks fit.
constexpr int kSharedPerSm = 227 * 1024;
// Threads of a block the shapes may ask for.
constexpr int kMaxThreads = 256;
// fp16 bits of 1024 + v for integers v in [0, 1024): one unit of the mantissa per integer.
constexpr unsigned kHalfBias = 0x6400u;

__device__ __forceinline__ unsigned pack16(int lo, int hi) {
  return (static_cast<unsigned>(lo) & 0xffffu) | (static_cast<unsigned>(hi) << 16);
}
__device__ __forceinline__ int lo16(unsigned w) { return static_cast<short>(w & 0xffffu); }
__device__ __forceinline__ int hi16(unsigned w) { return static_cast<short>(w >> 16); }
__device__ __forceinline__ unsigned half_bits(__half2 h) { return *reinterpret_cast<unsigned*>(&h); }
__device__ __forceinline__ __half2 as_half2(unsigned u) { return *reinterpret_cast<__half2*>(&u); }
__device__ __forceinline__ unsigned half_pair(int lo, int hi) {
  return half_bits(__halves2half2(__int2half_rn(lo), __int2half_rn(hi)));
}

// Shared-memory operands of one form, by slot and thread (uint4 units, consecutive threads contiguous,
// so every 16-byte load of a warp is conflict-free): A then B.
template <Form F>
struct Layout {
  static constexpr bool kLean = F == Form::lean16 || F == Form::wide16;  // constant slot offsets, kThreads threads
  static constexpr bool kSplatA = F == Form::fused16 || kLean;           // A stored splatted, 16-bit pairs
  static constexpr int kAUnits = (kSplatA || F == Form::fused32) ? 2 : 1;  // uint4 per thread per slot
  static constexpr int kBUnits = (F == Form::fused32 || F == Form::wide16) ? 2 : 1;
  static constexpr int kWords = (F == Form::fused32 || F == Form::wide16) ? 8 : 4;  // accumulator words of a tile row
};

// kBound, kMinBlocks: the launch bounds (the default shape's are the double reduction's). A block of more
// than kThreads threads repeats the operands and starting tiles of threads t % kThreads.
template <Form F, int kBound, int kMinBlocks>
__global__ void __launch_bounds__(kBound, kMinBlocks)
    ceiling_kernel(const int* a, const int* b, const int* init, int steps, int* tiles, unsigned* checksums) {
  using L = Layout<F>;
  extern __shared__ __align__(16) uint4 smem[];
  // The lean forms' blocks have kThreads threads (check_shape), so that every slot's offset is a constant.
  const int t = threadIdx.x, nt = L::kLean ? kThreads : static_cast<int>(blockDim.x), tin = t % kThreads;
  uint4* const as = smem;                            // [slot][unit][thread]
  uint4* const bs = smem + kSlots * L::kAUnits * nt;  // [slot][unit][thread]
  // Operands into their form (the kernels store them so before their loops).
  for (int s = 0; s < kSlots; ++s) {
    const int* av = a + (s * kThreads + tin) * kMt;
    const int* bv = b + (s * kThreads + tin) * kMt;
    unsigned aw[8], bw[8];
    for (int k = 0; k < 8; ++k) {
      if constexpr (L::kSplatA) {
        aw[k] = pack16(av[k], av[k]);
        bw[k] = pack16(bv[2 * (k & 3)], bv[2 * (k & 3) + 1]);  // wide16's columns 8 .. 15: 0 .. 7 again
      } else if constexpr (F == Form::fused32) {
        aw[k] = static_cast<unsigned>(av[k]);
        bw[k] = static_cast<unsigned>(bv[k]);
      } else if constexpr (F == Form::splat16) {
        if (k < 4) aw[k] = pack16(av[2 * k], av[2 * k + 1]), bw[k] = pack16(bv[2 * k], bv[2 * k + 1]);
      } else {
        if (k < 4) aw[k] = half_pair(av[2 * k], av[2 * k + 1]), bw[k] = pack16(kHalfBias + bv[2 * k], kHalfBias + bv[2 * k + 1]);
      }
    }
    for (int u = 0; u < L::kAUnits; ++u) as[(s * L::kAUnits + u) * nt + t] = make_uint4(aw[4 * u], aw[4 * u + 1], aw[4 * u + 2], aw[4 * u + 3]);
    for (int u = 0; u < L::kBUnits; ++u) bs[(s * L::kBUnits + u) * nt + t] = make_uint4(bw[4 * u], bw[4 * u + 1], bw[4 * u + 2], bw[4 * u + 3]);
  }
  unsigned acc[kMt][L::kWords];
  const int* iv = init + tin * kTileCells;
#pragma unroll
  for (int r = 0; r < kMt; ++r)
#pragma unroll
    for (int w = 0; w < L::kWords; ++w) {
      if constexpr (F == Form::fused32)
        acc[r][w] = static_cast<unsigned>(iv[r * kMt + w]);
      else if constexpr (F == Form::half_max3)
        acc[r][w] = pack16(kHalfBias + iv[r * kMt + 2 * w], kHalfBias + iv[r * kMt + 2 * w + 1]);
      else
        acc[r][w] = pack16(iv[r * kMt + 2 * (w & 3)], iv[r * kMt + 2 * (w & 3) + 1]);
    }
  __syncthreads();

  // One step's operands: A's 8 values (as the form holds them) and B's words.
  struct Step {
    unsigned a[8], b[8];
  };
  auto load = [&](int s) {
    Step o;
    const uint4 a0 = as[(s * L::kAUnits) * nt + t];
    o.a[0] = a0.x, o.a[1] = a0.y, o.a[2] = a0.z, o.a[3] = a0.w;
    if constexpr (L::kAUnits == 2) {
      const uint4 a1 = as[(s * L::kAUnits + 1) * nt + t];
      o.a[4] = a1.x, o.a[5] = a1.y, o.a[6] = a1.z, o.a[7] = a1.w;
    }
    const uint4 b0 = bs[(s * L::kBUnits) * nt + t];
    o.b[0] = b0.x, o.b[1] = b0.y, o.b[2] = b0.z, o.b[3] = b0.w;
    if constexpr (L::kBUnits == 2) {
      const uint4 b1 = bs[(s * L::kBUnits + 1) * nt + t];
      o.b[4] = b1.x, o.b[5] = b1.y, o.b[6] = b1.z, o.b[7] = b1.w;
    }
    return o;
  };
  // Two steps a pair, two pairs an iteration; the slots move with the step, so no load leaves the loop.
  // The lean forms: every slot once a round, each at a constant offset, then the last four steps.
  auto pair = [&](int s) {
    const Step p = load(s), q = load(s + 1);
#pragma unroll
    for (int r = 0; r < kMt; ++r) {
#pragma unroll
      for (int w = 0; w < L::kWords; ++w) {
        if constexpr (L::kSplatA) {
          acc[r][w] = __viaddmax_s16x2(p.a[r], p.b[w], acc[r][w]);
          acc[r][w] = __viaddmax_s16x2(q.a[r], q.b[w], acc[r][w]);
        } else if constexpr (F == Form::fused32) {
          acc[r][w] = static_cast<unsigned>(__viaddmax_s32(static_cast<int>(p.a[r]), static_cast<int>(p.b[w]), static_cast<int>(acc[r][w])));
          acc[r][w] = static_cast<unsigned>(__viaddmax_s32(static_cast<int>(q.a[r]), static_cast<int>(q.b[w]), static_cast<int>(acc[r][w])));
        } else if constexpr (F == Form::splat16) {
          const unsigned sel = (r & 1) ? 0x3232u : 0x1010u;
          acc[r][w] = __viaddmax_s16x2(__byte_perm(p.a[r >> 1], 0, sel), p.b[w], acc[r][w]);
          acc[r][w] = __viaddmax_s16x2(__byte_perm(q.a[r >> 1], 0, sel), q.b[w], acc[r][w]);
        } else {
          const __half2 x = as_half2(p.a[r >> 1]), y = as_half2(q.a[r >> 1]);
          const __half2 ap = (r & 1) ? __high2half2(x) : __low2half2(x), aq = (r & 1) ? __high2half2(y) : __low2half2(y);
          acc[r][w] = __vimax3_s16x2(acc[r][w], half_bits(__hadd2(ap, as_half2(p.b[w]))), half_bits(__hadd2(aq, as_half2(q.b[w]))));
        }
      }
    }
  };
  if constexpr (L::kLean) {
    const int rounds = steps / kSlots;
#pragma unroll 1
    for (int i = 0; i < rounds; ++i) {
#pragma unroll
      for (int s = 0; s < kSlots; s += 2) pair(s);
    }
    if (steps % kSlots != 0) {
#pragma unroll
      for (int s = 0; s < 4; s += 2) pair(s);
    }
  } else {
#pragma unroll 1
    for (int i = 0; i < steps; i += 4) {
#pragma unroll
      for (int h = 0; h < 4; h += 2) pair((i + h) & (kSlots - 1));
    }
  }
  // Every cell (full tiles wanted) or a checksum (timing: keeps the loop's results live).
  if (tiles != nullptr) {
    int* out = tiles + (static_cast<long long>(blockIdx.x) * nt + t) * kTileCells;
#pragma unroll
    for (int r = 0; r < kMt; ++r)
#pragma unroll
      for (int w = 0; w < L::kWords; ++w) {
        if constexpr (F == Form::fused32) {
          out[r * kMt + w] = static_cast<int>(acc[r][w]);
        } else if constexpr (F == Form::wide16) {
          if (w < 4) {
            const bool same = acc[r][w] == acc[r][w + 4];
            out[r * kMt + 2 * w] = same ? lo16(acc[r][w]) : -1;
            out[r * kMt + 2 * w + 1] = same ? hi16(acc[r][w]) : -1;
          }
        } else {
          const int bias = F == Form::half_max3 ? static_cast<int>(kHalfBias) : 0;
          out[r * kMt + 2 * w] = lo16(acc[r][w]) - bias;
          out[r * kMt + 2 * w + 1] = hi16(acc[r][w]) - bias;
        }
      }
  } else {
    unsigned x = 0;
#pragma unroll
    for (int r = 0; r < kMt; ++r)
#pragma unroll
      for (int w = 0; w < L::kWords; ++w) x ^= acc[r][w];
    checksums[static_cast<long long>(blockIdx.x) * nt + t] = x;
  }
}

template <class G>
void by_form(Form f, G g) {
  switch (f) {
    case Form::fused16: return g(std::integral_constant<Form, Form::fused16>{});
    case Form::fused32: return g(std::integral_constant<Form, Form::fused32>{});
    case Form::splat16: return g(std::integral_constant<Form, Form::splat16>{});
    case Form::half_max3: return g(std::integral_constant<Form, Form::half_max3>{});
    case Form::lean16: return g(std::integral_constant<Form, Form::lean16>{});
    case Form::wide16: return g(std::integral_constant<Form, Form::wide16>{});
  }
  throw UsageError("ceiling: unknown form");
}

struct DeviceInputs {
  gpu::DeviceBuffer<int> a, b, init;
  explicit DeviceInputs(const Inputs& in) : a(in.a.size()), b(in.b.size()), init(in.init.size()) {
    a.upload(in.a);
    b.upload(in.b);
    init.upload(in.init);
    CUDA_CHECK(cudaDeviceSynchronize());  // (the copies from pageable memory, before other streams read them)
  }
};

// The kernel of form `form` for a shape: blocks of kThreads take the double reduction's launch bounds,
// larger blocks (fused16 only) their own.
template <class FormC>
auto kernel_for(FormC, const Shape& shape) {
  constexpr Form F = FormC::value;
  if constexpr (F == Form::fused16)
    return shape.threads > kThreads ? ceiling_kernel<F, kMaxThreads, 1> : ceiling_kernel<F, kThreads, 2>;
  else
    return ceiling_kernel<F, kThreads, 2>;
}

// Shared memory of one block of `shape`: its share of the multiprocessor's, so that blocks_per_sm fit.
int shared_bytes(const Shape& shape) { return (kSharedPerSm / shape.blocks_per_sm - 1024) / 1024 * 1024; }

void check_shape(Form f, const Shape& shape) {
  if (shape.blocks_per_sm < 1 || shape.blocks_per_sm > 4 || shape.threads < 32 || shape.threads % 32 != 0 ||
      shape.threads > kMaxThreads || (shape.threads > kThreads && f != Form::fused16) ||
      ((f == Form::lean16 || f == Form::wide16) && shape.threads != kThreads))
    throw UsageError("ceiling: a shape of 1 to 4 blocks a multiprocessor of 32 to 256 threads (over 128: fused16 only; "
                     "lean16 and wide16: 128)");
}

void launch(Form f, const DeviceInputs& d, const Shape& shape, int blocks, int steps, int* tiles, unsigned* checksums,
            cudaStream_t stream) {
  check_shape(f, shape);
  by_form(f, [&](auto form) {
    auto* kernel = kernel_for(form, shape);
    const int bytes = shared_bytes(shape);
    using L = Layout<decltype(form)::value>;
    if (kSlots * (L::kAUnits + L::kBUnits) * shape.threads * 16 > bytes)
      throw UsageError("ceiling: the operands of " + std::to_string(shape.threads) + " threads do not fit in " +
                       std::to_string(bytes) + " bytes of shared memory");
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    kernel<<<static_cast<unsigned>(blocks), static_cast<unsigned>(shape.threads), static_cast<std::size_t>(bytes), stream>>>(
        d.a.get(), d.b.get(), d.init.get(), steps, tiles, checksums);
    CUDA_CHECK_LAUNCH();
  });
}

void check_steps(int steps) {
  if (steps <= 0 || steps % 4 != 0) throw UsageError("ceiling: steps must be a positive multiple of 4");
}

}  // namespace

std::string form_name(Form f) {
  switch (f) {
    case Form::fused16: return "fused add-max, 16-bit pairs";
    case Form::fused32: return "fused add-max, 32-bit";
    case Form::splat16: return "fused add-max, 16-bit, A splatted in the loop";
    case Form::half_max3: return "half adds + 3-way 16-bit max";
    case Form::lean16: return "fused16, constant slot offsets";
    case Form::wide16: return "fused16, constant offsets, 8 x 16 tile";
  }
  return "?";
}

std::vector<Shape> occupancy_shapes() {
  return {Shape{1, 128}, Shape{2, 128}, Shape{1, 256}, Shape{2, 192}, Shape{3, 128}, Shape{4, 128}};
}

std::vector<Form> all_forms() {
  return {Form::fused16, Form::fused32, Form::splat16, Form::half_max3, Form::lean16, Form::wide16};
}

Inputs make_inputs(std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> value(0, kMaxValue), start(0, 2 * kMaxValue);
  Inputs in;
  in.a.resize(static_cast<std::size_t>(kSlots) * kThreads * kMt);
  in.b.resize(in.a.size());
  in.init.resize(static_cast<std::size_t>(kThreads) * kTileCells);
  for (int& v : in.a) v = value(rng);
  for (int& v : in.b) v = value(rng);
  for (int& v : in.init) v = start(rng);
  return in;
}

std::vector<int> expected_tile(const Inputs& in, int steps) {
  std::vector<int> out(in.init);
  const int slots = std::min(steps, kSlots);
  for (int t = 0; t < kThreads; ++t)
    for (int s = 0; s < slots; ++s)
      for (int r = 0; r < kMt; ++r)
        for (int c = 0; c < kMt; ++c) {
          int& cell = out[static_cast<std::size_t>(t) * kTileCells + r * kMt + c];
          cell = std::max(cell, in.a[(static_cast<std::size_t>(s) * kThreads + t) * kMt + r] +
                                    in.b[(static_cast<std::size_t>(s) * kThreads + t) * kMt + c]);
        }
  return out;
}

std::vector<int> final_tiles(Form f, const Inputs& in, int device, int steps, int blocks, const Shape& shape) {
  check_steps(steps);
  if (blocks < 1) throw UsageError("ceiling: at least one block");
  CUDA_CHECK(cudaSetDevice(device));
  const DeviceInputs d(in);
  const std::ptrdiff_t block_cells = static_cast<std::ptrdiff_t>(shape.threads) * kTileCells;
  gpu::DeviceBuffer<int> tiles(static_cast<std::size_t>(blocks) * static_cast<std::size_t>(block_cells));
  gpu::Stream stream;
  launch(f, d, shape, blocks, steps, tiles.get(), nullptr, stream.get());
  stream.synchronize();
  const std::vector<int> all = tiles.to_host();
  std::vector<int> out(all.begin(), all.begin() + block_cells);
  out.insert(out.end(), all.end() - block_cells, all.end());
  return out;
}

std::vector<int> expected_block(const Inputs& in, int steps, int threads) {
  const std::vector<int> one = expected_tile(in, steps);
  std::vector<int> out;
  for (int t = 0; t < threads; ++t)
    out.insert(out.end(), one.begin() + (t % kThreads) * kTileCells, one.begin() + (t % kThreads + 1) * kTileCells);
  return out;
}

std::string tile_mismatch(const std::vector<int>& got, const std::vector<int>& want, int blocks) {
  if (got.size() != 2 * want.size())
    return std::to_string(got.size()) + " cells for two blocks of " + std::to_string(want.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    const std::size_t cell = k % want.size();
    if (got[k] != want[cell])
      return "block " + std::to_string(k < want.size() ? 0 : blocks - 1) + ", thread " +
             std::to_string(cell / kTileCells) + ", cell " + std::to_string(cell % kTileCells) + ": " +
             std::to_string(got[k]) + ", the CPU gives " + std::to_string(want[cell]);
  }
  return {};
}

int resident_blocks(Form f, const Shape& shape, int device) {
  check_shape(f, shape);
  CUDA_CHECK(cudaSetDevice(device));
  int n = 0;
  by_form(f, [&](auto form) {
    auto* kernel = kernel_for(form, shape);
    const int bytes = shared_bytes(shape);
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, shape.threads, static_cast<std::size_t>(bytes)));
  });
  return n;
}

Timing time_form(Form f, int device, int steps, int reps, int waves, const Shape& shape) {
  check_steps(steps);
  check_shape(f, shape);
  CUDA_CHECK(cudaSetDevice(device));
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const int blocks = sms * shape.blocks_per_sm * std::max(1, waves);
  const DeviceInputs d(make_inputs(1));
  gpu::DeviceBuffer<unsigned> checksums(static_cast<std::size_t>(blocks) * static_cast<std::size_t>(shape.threads));
  gpu::Stream stream;
  gpu::EventPair events;
  launch(f, d, shape, blocks, steps, nullptr, checksums.get(), stream.get());  // warm-up
  stream.synchronize();
  Timing out;
  for (int k = 0; k < std::max(1, reps); ++k) {
    events.start(stream.get());
    launch(f, d, shape, blocks, steps, nullptr, checksums.get(), stream.get());
    events.stop(stream.get());
    stream.synchronize();
    const double s = events.ms() / 1000.0;
    if (k == 0 || s < out.seconds) out.seconds = s;
  }
  out.updates = static_cast<double>(blocks) * shape.threads * steps * kTileCells * (f == Form::wide16 ? 2 : 1);
  out.updates_per_s = out.updates / out.seconds;
  return out;
}

}  // namespace screen::kernels::ceiling
