// Host side of the miRanda GPU scan: the target stream cut into batches, the two slots of reused
// device and pinned host buffers, the launches (one per row variant), the overflow retry, and
// scan_candidates_gpu on top of GpuScanner.
#include "stages/miranda/cuda.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>

#include "common/error.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/device_info.hpp"
#include "kernels/miranda/miranda_launch.hpp"
#include "stages/miranda/cpu_scan.hpp"

namespace screen::miranda {
namespace knl = screen::kernels::miranda;

bool gpu_available() { return gpu::gpu_count() > 0; }

namespace {

constexpr int kVariants[] = {24, 32, 64, 128};
constexpr std::size_t kMaxAutoCapacity = std::size_t{1} << 26;

void require_device(int device) {
  const int count = gpu::gpu_count();
  if (count == 0) throw ResourceError("miRanda on the GPU: " + gpu::no_gpu_reason());
  if (device < 0 || device >= count)
    throw ResourceError(fmt::format("miRanda on the GPU: no GPU {} (this machine has {})", device, count));
}

// RAII CUDA stream and event pair.
struct Stream {
  cudaStream_t s = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  Stream() {
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~Stream() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaStreamDestroy(s);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

// One batch's buffers; reused by every batch of the slot, grown when a batch needs more.
struct Slot {
  Stream stream;
  gpu::PinnedBuffer<std::uint8_t> h_codes;
  gpu::DeviceBuffer<std::uint8_t> d_codes;
  gpu::PinnedBuffer<std::int32_t> h_starts;
  gpu::DeviceBuffer<std::int32_t> d_starts;
  gpu::DeviceBuffer<knl::RawCandidate> d_out;
  gpu::PinnedBuffer<knl::RawCandidate> h_out;
  gpu::DeviceBuffer<unsigned long long> d_count{1};
  gpu::PinnedBuffer<unsigned long long> h_count{1};
  // The batch in the slot.
  std::size_t batch = static_cast<std::size_t>(-1);
  std::size_t first = 0;       // non-empty target of starts[0]
  std::uint32_t n_targets = 0;
  std::int32_t report_begin = 0, report_end = 0;
};

}  // namespace

struct GpuScanner::Impl {
  const SeqView* targets = nullptr;
  ScoreModel model;
  GpuScanOptions options;
  int threshold = 1;
  int sms = 1;
  std::vector<std::size_t> gpu_q, cpu_q;
  int max_warm = 0;
  // The target stream: non-empty targets end to end.
  std::vector<std::size_t> ne_index;   // non-empty target -> target index
  std::vector<std::uint64_t> ne_start;  // [non-empty + 1] stream start of each
  std::vector<std::uint64_t> target_end;  // [targets] stream end of each target
  std::uint64_t total = 0;
  std::uint64_t batch_columns = 0;
  std::size_t n_batches = 0;
  // Queries on the device; per row variant, a range of launch_q.
  gpu::DeviceBuffer<std::uint8_t> d_qcodes;
  gpu::DeviceBuffer<std::uint64_t> d_qoff;
  gpu::DeviceBuffer<std::int32_t> d_qlen, d_qwarm;
  gpu::DeviceBuffer<std::uint32_t> d_launch_q;
  struct Launch {
    int rows = 0;
    std::size_t first = 0, count = 0;
  };
  std::vector<Launch> launches;
  std::size_t budget = 0, fixed_bytes = 0, capacity = 0;
  std::unique_ptr<Slot> slots[2];  // made on the device once it is chosen
  GpuScanStats st;

  // Bytes held on the GPU now.
  std::size_t device_bytes() const {
    std::size_t b = fixed_bytes;
    for (const auto& s : slots)
      if (s) b += s->d_codes.bytes() + s->d_starts.bytes() + s->d_out.bytes() + s->d_count.bytes();
    return b;
  }
  void note_bytes() { st.device_bytes = std::max(st.device_bytes, device_bytes()); }
  // Bytes committed against the budget: the queries, both slots' codes and starts at their largest
  // (5 bytes a position), and the candidate buffers.
  std::size_t committed(std::size_t out_elements) const {
    return fixed_bytes + 2 * (5 * (static_cast<std::size_t>(batch_columns) + static_cast<std::size_t>(max_warm) + 2) + 8) +
           out_elements * sizeof(knl::RawCandidate);
  }
  std::size_t out_elements() const {
    std::size_t n = 0;
    for (const auto& s : slots)
      if (s) n += s->d_out.size();
    return n;
  }

  void launch(Slot& s, std::int32_t rb, std::int32_t re);
  void run_range(Slot& s, std::int32_t rb, std::int32_t re, std::vector<FoundCandidate>& out);
};

GpuScanner::GpuScanner(const SeqView* queries, std::size_t n_queries, const SeqView* targets, std::size_t n_targets,
                       const ScoreModel& model, const GpuScanOptions& options)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.targets = targets;
  m.model = model;
  m.options = options;
  m.threshold = std::max(model.threshold, 1);
  if (max_positive_span(1, model) < 0)
    throw Error(ExitCode::internal, "miranda gpu: gap costs must be negative for the scan");
  if (options.chunk_columns < 0) throw UsageError("miranda gpu: chunk_columns must be >= 0");
  if (!(options.memory_fraction > 0 && options.memory_fraction <= 1))
    throw UsageError("miranda gpu: memory_fraction must be in (0, 1]");
  if (n_queries > 0xffffffffu || n_targets > 0xffffffffu)
    throw ResourceError("miranda gpu: more than 2^32 queries or targets in one scan");

  for (std::size_t q = 0; q < n_queries; ++q) {
    const int lq = static_cast<int>(std::min<std::size_t>(queries[q].length, 1u << 30));
    if (lq == 0 || m.threshold > max_cell_gain(lq, model)) continue;  // no cell can reach the threshold
    (knl::rows_variant(lq) > 0 && scan_fits_16bit(lq, model) ? m.gpu_q : m.cpu_q).push_back(q);
  }
  m.target_end.resize(n_targets);
  for (std::size_t t = 0; t < n_targets; ++t) {
    if (targets[t].length > (std::size_t{1} << 30)) throw InputError("miranda: a target is longer than 2^30 bases");
    if (targets[t].length > 0) {
      m.ne_index.push_back(t);
      m.ne_start.push_back(m.total);
    }
    m.total += targets[t].length;
    m.target_end[t] = m.total;
  }
  m.ne_start.push_back(m.total);
  m.st.gpu_queries = m.gpu_q.size();
  m.st.cpu_queries = m.cpu_q.size();
  if (m.gpu_q.empty() || m.total == 0) return;  // nothing for the GPU: no device needed

  require_device(options.device);
  CUDA_CHECK(cudaSetDevice(options.device));
  CUDA_CHECK(cudaDeviceGetAttribute(&m.sms, cudaDevAttrMultiProcessorCount, options.device));
  for (auto& slot : m.slots) slot = std::make_unique<Slot>();
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  m.budget = gpu::planning_budget(free_bytes, total_bytes, options.memory_fraction);

  // Queries: codes, lengths, warm-ups, grouped by row variant.
  std::vector<std::uint8_t> qcodes;
  std::vector<std::uint64_t> qoff;
  std::vector<std::int32_t> qlen, qwarm;
  for (const std::size_t q : m.gpu_q) {
    const int lq = static_cast<int>(queries[q].length);
    qoff.push_back(qcodes.size());
    for (int k = 0; k < lq; ++k) qcodes.push_back(std::min<std::uint8_t>(queries[q].codes[k], 4));
    qlen.push_back(lq);
    qwarm.push_back(max_positive_span(lq, model) + 2);  // the CPU scan's rule
    m.max_warm = std::max(m.max_warm, qwarm.back());
  }
  std::vector<std::uint32_t> launch_q;
  for (const int rows : kVariants) {
    Impl::Launch l{rows, launch_q.size(), 0};
    for (std::size_t k = 0; k < m.gpu_q.size(); ++k)
      if (knl::rows_variant(qlen[k]) == rows) launch_q.push_back(static_cast<std::uint32_t>(k));
    l.count = launch_q.size() - l.first;
    if (l.count > 0) m.launches.push_back(l);
  }
  m.d_qcodes.upload(qcodes);
  m.d_qoff.upload(qoff);
  m.d_qlen.upload(qlen);
  m.d_qwarm.upload(qwarm);
  m.d_launch_q.upload(launch_q);
  CUDA_CHECK(cudaDeviceSynchronize());  // the host vectors above go out of scope
  m.fixed_bytes = m.d_qcodes.bytes() + m.d_qoff.bytes() + m.d_qlen.bytes() + m.d_qwarm.bytes() + m.d_launch_q.bytes();

  // Batch length: a given one, or an eighth of the stream in [2^20, 2^26]; either way within a
  // quarter of the budget for both slots' codes and starts (5 bytes a position at most).
  std::uint64_t bc = options.batch_columns;
  if (bc == 0) bc = std::clamp<std::uint64_t>((m.total + 7) / 8, std::uint64_t{1} << 20, std::uint64_t{1} << 26);
  const std::uint64_t room = m.budget / 4 / (2 * 5);
  bc = std::min<std::uint64_t>({bc, room, std::uint64_t{1} << 29});  // relative positions stay within int32
  if (bc == 0 || 2 * 5 * (bc + static_cast<std::uint64_t>(m.max_warm) + 2) + m.fixed_bytes >= m.budget)
    throw ResourceError(fmt::format("miranda gpu: the GPU memory budget ({} bytes) holds no batch", m.budget));
  m.batch_columns = bc;
  m.n_batches = static_cast<std::size_t>((m.total + bc - 1) / bc);
  m.st.batch_columns = static_cast<std::size_t>(bc);
  m.st.batches = m.n_batches;
  // Candidate capacity: given, or one per 16,384 cells of a batch (a few times what microRNAs against
  // random sequence need at the default threshold), within half of the rest of the budget per slot.
  const std::size_t rest = m.budget - std::min(m.budget, m.fixed_bytes + 2 * 5 * static_cast<std::size_t>(bc));
  const double batch_cells = static_cast<double>(bc) * static_cast<double>(qcodes.size());
  const std::size_t by_cells = static_cast<std::size_t>(std::min(batch_cells / 16384.0, 1e12));
  const std::size_t by_budget = std::max<std::size_t>(rest / 2 / 2 / sizeof(knl::RawCandidate), 1024);
  m.capacity = options.initial_capacity > 0
                   ? options.initial_capacity
                   : std::min({std::max<std::size_t>(by_cells, std::size_t{1} << 16), kMaxAutoCapacity, by_budget});
  m.capacity = std::min<std::size_t>(m.capacity, 0xffffffffu);
  m.note_bytes();
}

GpuScanner::~GpuScanner() = default;

const std::vector<std::size_t>& GpuScanner::cpu_queries() const { return impl_->cpu_q; }
std::size_t GpuScanner::batches() const { return impl_->n_batches; }
const GpuScanStats& GpuScanner::stats() const { return impl_->st; }

std::size_t GpuScanner::targets_done(std::size_t b) const {
  const Impl& m = *impl_;
  if (b + 1 >= m.n_batches) return m.target_end.size();
  const std::uint64_t end = (b + 1) * m.batch_columns;
  return static_cast<std::size_t>(std::upper_bound(m.target_end.begin(), m.target_end.end(), end) -
                                  m.target_end.begin());
}

void GpuScanner::Impl::launch(Slot& s, std::int32_t rb, std::int32_t re) {
  knl::ScanArgs a;
  a.query_codes = d_qcodes.get();
  a.query_offset = d_qoff.get();
  a.query_length = d_qlen.get();
  a.query_warm = d_qwarm.get();
  a.codes = s.d_codes.get();
  a.starts = s.d_starts.get();
  a.n_targets = s.n_targets;
  a.report_begin = rb;
  a.report_end = re;
  a.model = model;
  a.threshold = threshold;
  a.out = s.d_out.get();
  a.capacity = static_cast<std::uint32_t>(s.d_out.size());
  a.count = s.d_count.get();
  // Lanes per query: about 8 resident waves of the GPU over all queries (at least one block), each
  // lane at least 4 warm-ups long.
  const long long len = re - rb;
  long long quota = options.chunk_columns;
  if (quota == 0) {
    const long long lanes = std::max<long long>(
        knl::kLanesPerBlock, 8LL * 2048 * sms / static_cast<long long>(gpu_q.size()));
    quota = std::max<long long>((len + lanes - 1) / lanes, 4LL * max_warm);
  }
  quota = std::min<long long>(quota, std::max<long long>(len, 1));
  a.quota = static_cast<std::int32_t>(quota);
  st.chunk_columns = a.quota;
  const long long lanes = (len + quota - 1) / quota;
  a.blocks_per_query = static_cast<std::uint32_t>((lanes + knl::kLanesPerBlock - 1) / knl::kLanesPerBlock);
  CUDA_CHECK(cudaMemsetAsync(s.d_count.get(), 0, sizeof(unsigned long long), s.stream.s));
  CUDA_CHECK(cudaEventRecord(s.stream.start, s.stream.s));
  for (const Launch& l : launches) {
    const unsigned long long blocks = static_cast<unsigned long long>(l.count) * a.blocks_per_query;
    if (blocks > 0x7fffffffULL) throw ResourceError("miranda gpu: too many blocks for one launch; split the queries");
    a.rows = l.rows;
    a.launch_queries = d_launch_q.get() + l.first;
    a.n_blocks = static_cast<std::uint32_t>(blocks);
    knl::launch_scan(a, s.stream.s);
    ++st.launches;
  }
  CUDA_CHECK(cudaEventRecord(s.stream.stop, s.stream.s));
  CUDA_CHECK(cudaMemcpyAsync(s.h_count.get(), s.d_count.get(), sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                             s.stream.s));
}

void GpuScanner::submit(std::size_t b) {
  Impl& m = *impl_;
  if (b >= m.n_batches) throw Error(ExitCode::internal, "miranda gpu: no such batch");
  Slot& s = *m.slots[b % 2];
  if (s.batch != static_cast<std::size_t>(-1))
    throw Error(ExitCode::internal, "miranda gpu: batch submitted before the slot's last one was collected");
  CUDA_CHECK(cudaSetDevice(m.options.device));
  const std::uint64_t B0 = b * m.batch_columns, B1 = std::min(m.total, B0 + m.batch_columns);
  // Non-empty targets k0..k1 hold positions B0..B1-1; codes from base (warm-ups reach back).
  const std::size_t k0 =
      static_cast<std::size_t>(std::upper_bound(m.ne_start.begin(), m.ne_start.end(), B0) - m.ne_start.begin()) - 1;
  const std::size_t k1 =
      static_cast<std::size_t>(std::upper_bound(m.ne_start.begin(), m.ne_start.end(), B1 - 1) - m.ne_start.begin()) - 1;
  const std::uint64_t base = std::max<std::uint64_t>(m.ne_start[k0], B0 >= static_cast<std::uint64_t>(m.max_warm)
                                                                         ? B0 - static_cast<std::uint64_t>(m.max_warm)
                                                                         : 0);
  const std::size_t n_codes = static_cast<std::size_t>(B1 - base);
  const std::size_t n_starts = k1 - k0 + 2;
  s.h_codes.reserve(n_codes);
  s.h_starts.reserve(n_starts);
  std::size_t w = 0;
  for (std::size_t k = k0; k <= k1; ++k) {
    const SeqView& t = m.targets[m.ne_index[k]];
    const std::uint64_t from = std::max(base, m.ne_start[k]), to = std::min(B1, m.ne_start[k + 1]);
    const std::uint8_t* src = t.codes + (from - m.ne_start[k]);
    for (std::uint64_t p = from; p < to; ++p) s.h_codes[w++] = std::min<std::uint8_t>(*src++, 4);
  }
  for (std::size_t k = k0; k <= k1 + 1; ++k)
    s.h_starts[k - k0] = static_cast<std::int32_t>(static_cast<long long>(m.ne_start[k]) - static_cast<long long>(base));
  if (s.d_codes.size() < n_codes) s.d_codes.allocate(n_codes);  // within committed()
  if (s.d_starts.size() < n_starts) s.d_starts.allocate(n_starts);
  if (s.d_out.size() < m.capacity) {
    // As much of the capacity as the budget leaves (the other slot may hold a grown buffer).
    const std::size_t others = m.out_elements() - s.d_out.size();
    const std::size_t base_bytes = m.committed(others);
    const std::size_t fit = m.budget > base_bytes ? (m.budget - base_bytes) / sizeof(knl::RawCandidate) : 0;
    const std::size_t want = std::min(m.capacity, fit);
    if (want > s.d_out.size()) {
      s.d_out = gpu::DeviceBuffer<knl::RawCandidate>();
      s.d_out.allocate(want);
    }
  }
  m.note_bytes();
  CUDA_CHECK(cudaMemcpyAsync(s.d_codes.get(), s.h_codes.get(), n_codes, cudaMemcpyHostToDevice, s.stream.s));
  CUDA_CHECK(cudaMemcpyAsync(s.d_starts.get(), s.h_starts.get(), n_starts * sizeof(std::int32_t),
                             cudaMemcpyHostToDevice, s.stream.s));
  s.batch = b;
  s.first = k0;
  s.n_targets = static_cast<std::uint32_t>(k1 - k0 + 1);
  s.report_begin = static_cast<std::int32_t>(B0 - base);
  s.report_end = static_cast<std::int32_t>(B1 - base);
  m.launch(s, s.report_begin, s.report_end);
}

// Waits for the launch of positions rb..re-1 in flight on s; on overflow, scans again with a larger
// buffer, or, beyond the budget, in halves. Appends the candidates to out.
void GpuScanner::Impl::run_range(Slot& s, std::int32_t rb, std::int32_t re, std::vector<FoundCandidate>& out) {
  CUDA_CHECK(cudaStreamSynchronize(s.stream.s));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, s.stream.start, s.stream.stop));
  st.kernel_ms += static_cast<double>(ms);
  const unsigned long long count = s.h_count[0];
  if (count > s.d_out.size()) {
    ++st.retries;
    const std::size_t want = static_cast<std::size_t>(std::min<unsigned long long>(count + count / 8 + 1024, 0xffffffffULL));
    const std::size_t after = committed(out_elements() - s.d_out.size() + want);
    if (count <= 0xffffffffULL && after <= budget) {
      s.d_out = gpu::DeviceBuffer<knl::RawCandidate>();  // free first: the budget holds one buffer
      s.d_out.allocate(want);
      note_bytes();
      capacity = std::max(capacity, want);
      launch(s, rb, re);
      run_range(s, rb, re, out);
    } else {
      if (re - rb < 2) throw ResourceError("miranda gpu: one target position has more candidates than GPU memory holds");
      const std::int32_t mid = rb + (re - rb) / 2;
      launch(s, rb, mid);
      run_range(s, rb, mid, out);
      launch(s, mid, re);
      run_range(s, mid, re, out);
    }
    return;
  }
  const std::size_t n = static_cast<std::size_t>(count);
  if (s.h_out.size() < n) s.h_out.allocate(n + n / 4);
  if (n > 0) {
    CUDA_CHECK(cudaMemcpyAsync(s.h_out.get(), s.d_out.get(), n * sizeof(knl::RawCandidate), cudaMemcpyDeviceToHost,
                               s.stream.s));
    CUDA_CHECK(cudaStreamSynchronize(s.stream.s));
  }
  const std::size_t at = out.size();
  out.resize(at + n);
  for (std::size_t k = 0; k < n; ++k) {
    const knl::RawCandidate& r = s.h_out[k];
    FoundCandidate& f = out[at + k];
    f.query = static_cast<std::uint32_t>(gpu_q[r.query]);
    f.target = static_cast<std::uint32_t>(ne_index[s.first + r.target]);
    f.cand = Candidate{knl::candidate_score(r.packed), knl::candidate_row(r.packed), r.j,
                       static_cast<std::uint8_t>(knl::candidate_state(r.packed))};
  }
  st.candidates += n;
}

void GpuScanner::collect(std::size_t b, std::vector<FoundCandidate>& out) {
  Impl& m = *impl_;
  if (b >= m.n_batches) throw Error(ExitCode::internal, "miranda gpu: no such batch");
  Slot& s = *m.slots[b % 2];
  if (s.batch != b) throw Error(ExitCode::internal, "miranda gpu: collecting a batch that was not submitted");
  CUDA_CHECK(cudaSetDevice(m.options.device));
  m.run_range(s, s.report_begin, s.report_end, out);
  s.batch = static_cast<std::size_t>(-1);
}

std::vector<PairCandidates> scan_candidates_gpu(const SeqView* queries, std::size_t n_queries,
                                                const SeqView* targets, std::size_t n_targets,
                                                const ScoreModel& model, const GpuScanOptions& options,
                                                GpuScanStats* stats) {
  GpuScanner scanner(queries, n_queries, targets, n_targets, model, options);
  std::vector<FoundCandidate> found;
  const std::size_t nb = scanner.batches();
  if (nb > 0) scanner.submit(0);
  for (std::size_t b = 0; b < nb; ++b) {
    if (b + 1 < nb) scanner.submit(b + 1);
    scanner.collect(b, found);
  }
  // The queries the kernel does not take: the CPU scan, target by target.
  for (const std::size_t q : scanner.cpu_queries()) {
    for (std::size_t t = 0; t < n_targets; ++t) {
      if (targets[t].length == 0) continue;
      for (const Candidate& c : scan_candidates(queries[q], targets[t], model))
        found.push_back(FoundCandidate{static_cast<std::uint32_t>(q), static_cast<std::uint32_t>(t), c});
    }
  }
  GpuScanStats st = scanner.stats();
  st.candidates = found.size();

  std::sort(found.begin(), found.end(), [](const FoundCandidate& a, const FoundCandidate& b) {
    return std::tie(a.query, a.target, a.cand.i, a.cand.j) < std::tie(b.query, b.target, b.cand.i, b.cand.j);
  });
  std::vector<PairCandidates> out;
  for (std::size_t k = 0; k < found.size();) {
    PairCandidates p;
    p.query = found[k].query;
    p.target = found[k].target;
    for (; k < found.size() && found[k].query == p.query && found[k].target == p.target; ++k)
      p.candidates.push_back(found[k].cand);
    out.push_back(std::move(p));
  }
  if (stats != nullptr) *stats = st;
  return out;
}

}  // namespace screen::miranda
