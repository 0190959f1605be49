#include "stages/energy/cuda.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "common/error.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/device_info.hpp"
#include "gpu/stream.hpp"
#include "kernels/energy/duplex_launch.hpp"
#include "stages/energy/cpu.hpp"
#include "stages/energy/reference.hpp"

namespace screen::energy {

namespace knl = ::screen::kernels::energy;

namespace {

// Launches group strings by length, so that a warp's shared memory fits its launch's longest.
constexpr std::array<int, 7> kClasses = {32, 48, 64, 80, 96, 112, knl::kMaxGpuDuplex};

int class_of(std::size_t n) {
  for (std::size_t c = 0; c < kClasses.size(); ++c)
    if (n <= static_cast<std::size_t>(kClasses[c])) return static_cast<int>(c);
  return -1;
}

// Whether the kernel's 16-bit reasoning holds for this model: every finite loop term it adds to a
// raw cell is small (duplex_launch.hpp).
bool terms_fit(const LoopTables& lt) {
  const auto fits = [](int v) { return v >= kInf || (v > -knl::kTermLimit && v < knl::kTermLimit); };
  for (const auto& row : lt.generic_rev)
    for (const int v : row)
      if (!fits(v)) return false;
  for (const int v : lt.bulge)
    if (!fits(v)) return false;
  return true;
}

}  // namespace

bool gpu_available() { return gpu::gpu_count() > 0; }

struct GpuDuplexFolder::Impl {
  int device = 0;
  gpu::Stream stream;
  gpu::EventPair events;
  // The model on the device, and the host copy it was made from.
  bool have_model = false;
  bool model_fits = false;
  Model uploaded{};
  gpu::DeviceBuffer<Model> d_model{1};
  gpu::DeviceBuffer<LoopTables> d_loops{1};
  gpu::DeviceBuffer<std::int32_t> d_hairpin{knl::kMaxGpuDuplex + 1};
  // The batch.
  gpu::PinnedBuffer<char> h_letters;
  gpu::PinnedBuffer<std::uint32_t> h_offsets, h_order;
  gpu::PinnedBuffer<std::int32_t> h_energy;
  gpu::DeviceBuffer<char> d_letters;
  gpu::DeviceBuffer<std::uint32_t> d_offsets, d_order;
  gpu::DeviceBuffer<std::int32_t> d_energy;
  std::size_t count = 0;
  bool pending = false;
  int launches = 0;
  const Model* model = nullptr;
  std::vector<std::uint32_t> cpu_list;  // strings the kernel does not take
  std::vector<char> gpu_folded;         // per string of the last batch: folded by the GPU
  // Tables for structures (submit with_tables).
  bool with_tables = false;
  gpu::PinnedBuffer<std::uint64_t> h_table_offset;
  gpu::DeviceBuffer<std::uint64_t> d_table_offset;
  gpu::PinnedBuffer<std::int16_t> h_tables;
  gpu::DeviceBuffer<std::int16_t> d_tables;
  gpu::PinnedBuffer<std::int32_t> h_f;
  gpu::DeviceBuffer<std::int32_t> d_f;
  GpuFoldStats stats;

  explicit Impl(int dev) : device(dev) {}

  void set_model(const Model& m) {
    if (have_model && std::memcmp(&uploaded, &m, sizeof(Model)) == 0) return;
    const LoopTables lt = make_loop_tables(m);
    std::vector<std::int32_t> hairpin(knl::kMaxGpuDuplex + 1);
    for (int u = 0; u <= knl::kMaxGpuDuplex; ++u) hairpin[static_cast<std::size_t>(u)] = hairpin_length_energy(m, u);
    // Synchronous copies: a model changes rarely (once per temperature).
    CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    CUDA_CHECK(cudaMemcpy(d_model.get(), &m, sizeof(Model), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_loops.get(), &lt, sizeof(LoopTables), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_hairpin.get(), hairpin.data(), hairpin.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice));
    std::memcpy(&uploaded, &m, sizeof(Model));
    have_model = true;
    model_fits = terms_fit(lt);
  }
};

GpuDuplexFolder::GpuDuplexFolder(int device) {
  const int n = gpu::gpu_count();
  if (n == 0) throw ResourceError("duplex energies on the GPU: " + gpu::no_gpu_reason());
  if (device < 0 || device >= n)
    throw ResourceError(fmt::format("duplex energies on the GPU: no GPU {} (this machine has {})", device, n));
  CUDA_CHECK(cudaSetDevice(device));
  impl_ = std::make_unique<Impl>(device);
}

GpuDuplexFolder::~GpuDuplexFolder() {
  if (impl_ && impl_->pending) cudaStreamSynchronize(impl_->stream.get());  // buffers outlive the work
}

void GpuDuplexFolder::submit(const char* letters, const std::uint64_t* offsets, std::size_t count, const Model& m,
                             bool with_tables) {
  Impl& s = *impl_;
  if (s.pending) throw Error(ExitCode::internal, "GpuDuplexFolder: submit before the last batch was collected");
  CUDA_CHECK(cudaSetDevice(s.device));
  s.set_model(m);
  s.model = &m;
  s.count = count;
  s.cpu_list.clear();
  s.launches = 0;
  s.with_tables = with_tables;
  const std::uint64_t first = count ? offsets[0] : 0, total = count ? offsets[count] - first : 0;
  if (total > std::numeric_limits<std::uint32_t>::max())
    throw UsageError(fmt::format("duplex energies on the GPU: a batch of {} letters; at most 4 Gi per batch", total));
  // Pack: the letters as given, offsets rebased, and the strings ordered by length class.
  s.h_letters.reserve(std::max<std::uint64_t>(total, 1));
  s.h_offsets.reserve(count + 1);
  s.h_order.reserve(std::max<std::size_t>(count, 1));
  s.h_energy.reserve(std::max<std::size_t>(count, 1));
  if (total) std::memcpy(s.h_letters.get(), letters + first, total);
  std::array<std::size_t, kClasses.size() + 1> begin{};
  for (std::size_t k = 0; k <= count; ++k) s.h_offsets[k] = static_cast<std::uint32_t>(offsets[k] - first);
  std::vector<int> cls(count);
  for (std::size_t k = 0; k < count; ++k) {
    const int c = s.model_fits ? class_of(offsets[k + 1] - offsets[k]) : -1;
    cls[k] = c;
    if (c < 0)
      s.cpu_list.push_back(static_cast<std::uint32_t>(k));
    else
      ++begin[static_cast<std::size_t>(c) + 1];
  }
  for (std::size_t c = 0; c < kClasses.size(); ++c) begin[c + 1] += begin[c];
  std::array<std::size_t, kClasses.size()> at{};
  std::copy(begin.begin(), begin.end() - 1, at.begin());
  for (std::size_t k = 0; k < count; ++k)
    if (cls[k] >= 0) s.h_order[at[static_cast<std::size_t>(cls[k])]++] = static_cast<std::uint32_t>(k);
  const std::size_t on_gpu = begin[kClasses.size()];
  s.pending = true;
  if (on_gpu == 0) return;
  cudaStream_t st = s.stream.get();
  s.d_letters.upload(s.h_letters.get(), total, st);
  s.d_offsets.upload(s.h_offsets.get(), count + 1, st);
  s.d_order.upload(s.h_order.get(), on_gpu, st);
  if (s.d_energy.size() < count) s.d_energy.allocate(count);
  std::uint64_t table_cells = 0;
  if (with_tables) {
    s.h_table_offset.reserve(count + 1);
    for (std::size_t k = 0; k < count; ++k) {
      s.h_table_offset[k] = table_cells;
      table_cells += 2 * knl::triangle_cells(static_cast<int>(offsets[k + 1] - offsets[k]));
    }
    s.h_table_offset[count] = table_cells;
    s.d_table_offset.upload(s.h_table_offset.get(), count + 1, st);
    if (s.d_tables.size() < table_cells) s.d_tables.allocate(table_cells);
    if (s.d_f.size() < total + count) s.d_f.allocate(total + count);
  }
  s.events.start(st);
  for (std::size_t c = 0; c < kClasses.size(); ++c) {
    if (begin[c + 1] == begin[c]) continue;
    knl::FoldArgs a;
    a.model = s.d_model.get();
    a.loops = s.d_loops.get();
    a.hairpin_length = s.d_hairpin.get();
    a.letters = s.d_letters.get();
    a.offsets = s.d_offsets.get();
    a.order = s.d_order.get() + begin[c];
    a.count = static_cast<std::uint32_t>(begin[c + 1] - begin[c]);
    a.max_length = kClasses[c];
    a.energies = s.d_energy.get();
    if (with_tables) {
      a.tables = s.d_tables.get();
      a.table_offset = s.d_table_offset.get();
      a.f_out = s.d_f.get();
    }
    knl::launch_fold(a, s.device, st);
    ++s.launches;
  }
  s.events.stop(st);
  s.d_energy.download(s.h_energy.get(), count, st);
  if (with_tables) {
    s.h_tables.reserve(std::max<std::uint64_t>(table_cells, 1));
    s.h_f.reserve(total + count);
    s.d_tables.download(s.h_tables.get(), table_cells, st);
    s.d_f.download(s.h_f.get(), total + count, st);
  }
}

void GpuDuplexFolder::collect(int* out, int threads) {
  Impl& s = *impl_;
  if (!s.pending) throw Error(ExitCode::internal, "GpuDuplexFolder: collect without a submitted batch");
  s.pending = false;
  CUDA_CHECK(cudaSetDevice(s.device));
  if (s.launches > 0) {
    s.stream.synchronize();
    s.stats.kernel_ms += s.events.ms();
  }
  s.stats.launches += s.launches;
  s.stats.strings += s.count;
  // The GPU's energies, then the CPU for what it did not take or could not keep in 16 bits.
  s.gpu_folded.assign(s.count, 1);
  for (const std::uint32_t k : s.cpu_list) s.gpu_folded[k] = 0;
  for (std::size_t k = 0; k < s.count; ++k) {
    if (!s.gpu_folded[k]) continue;
    if (s.h_energy[k] == knl::kOverflow) {
      s.gpu_folded[k] = 0;
      s.cpu_list.push_back(static_cast<std::uint32_t>(k));
      continue;
    }
    out[k] = s.h_energy[k];
  }
  s.stats.on_cpu += s.cpu_list.size();
  if (s.cpu_list.empty()) return;
  const long long n = static_cast<long long>(s.cpu_list.size());
  if (threads <= 0) threads = omp_get_max_threads();
  const char* letters = s.h_letters.get();
  const std::uint32_t* off = s.h_offsets.get();
  const Model& m = *s.model;
#pragma omp parallel num_threads(threads) if (n > 1)
  {
    DuplexFolder& folder = thread_duplex_folder();
#pragma omp for schedule(dynamic, 16)
    for (long long q = 0; q < n; ++q) {
      const std::uint32_t k = s.cpu_list[static_cast<std::size_t>(q)];
      out[k] = folder.energy(std::string(letters + off[k], letters + off[k + 1]), m);
    }
  }
}

std::vector<int> GpuDuplexFolder::energies(const std::vector<std::string>& strings, const Model& m, int threads) {
  std::vector<std::uint64_t> offsets(strings.size() + 1, 0);
  for (std::size_t k = 0; k < strings.size(); ++k) offsets[k + 1] = offsets[k] + strings[k].size();
  std::string letters;
  letters.reserve(offsets.back());
  for (const auto& s : strings) letters += s;
  submit(letters.data(), offsets.data(), strings.size(), m);
  std::vector<int> out(strings.size(), 0);
  collect(out.data(), threads);
  return out;
}

const GpuFoldStats& GpuDuplexFolder::stats() const { return impl_->stats; }

bool GpuDuplexFolder::tables(std::size_t k, Tables& out) const {
  const Impl& s = *impl_;
  if (!s.with_tables || s.pending || k >= s.count || !s.gpu_folded[k]) return false;
  out.n = static_cast<int>(s.h_offsets[k + 1] - s.h_offsets[k]);
  const std::uint64_t cells = knl::triangle_cells(out.n);
  out.cau = s.h_tables.get() + s.h_table_offset[k];
  out.m = out.cau + cells;
  out.f = s.h_f.get() + s.h_offsets[k] + k;
  return true;
}

std::vector<FoldResult> fold_structures_gpu(const std::vector<std::string>& strings, const Model& m, int device,
                                            int threads) {
  GpuDuplexFolder folder(device);
  std::vector<std::uint64_t> offsets(strings.size() + 1, 0);
  for (std::size_t k = 0; k < strings.size(); ++k) offsets[k + 1] = offsets[k] + strings[k].size();
  std::string letters;
  letters.reserve(offsets.back());
  for (const auto& s : strings) letters += s;
  folder.submit(letters.data(), offsets.data(), strings.size(), m, /*with_tables=*/true);
  std::vector<int> energies(strings.size(), 0);
  if (threads <= 0) threads = omp_get_max_threads();
  folder.collect(energies.data(), threads);
  std::vector<FoldResult> out(strings.size());
  const long long n = static_cast<long long>(strings.size());
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (long long q = 0; q < n; ++q) {
    const std::size_t k = static_cast<std::size_t>(q);
    GpuDuplexFolder::Tables t;
    if (!folder.tables(k, t)) {  // the CPU fallback
      out[k] = fold_reference(strings[k], m, true);
      continue;
    }
    std::vector<int> code(static_cast<std::size_t>(t.n) + 1, 0);
    for (int i = 1; i <= t.n; ++i) code[static_cast<std::size_t>(i)] = letter_code(strings[k][static_cast<std::size_t>(i - 1)]);
    const auto c = [&](int i, int j) {
      const int type = pair_type(code[static_cast<std::size_t>(i)], code[static_cast<std::size_t>(j)]);
      const int v = t.cau[knl::triangle_index(t.n, i, j)];
      return type == 0 || v == knl::kInf16 ? kInf : v - terminal_penalty(m, type);
    };
    const auto mm = [&](int i, int j) {
      const int v = t.m[knl::triangle_index(t.n, i, j)];
      return v == knl::kInf16 ? kInf : v;
    };
    out[k].energy = energies[k];
    out[k].structure = traceback_with_tables(strings[k], m, c, mm, [&](int j) { return t.f[j]; });
  }
  return out;
}

}  // namespace screen::energy
