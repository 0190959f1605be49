// Host side of the miRanda GPU scan: chunk layout, device buffers, the launches (one per row
// variant), the overflow retry, and the candidates gathered per pair in collect_candidates' order.
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

void require_device(int device) {
  const int count = gpu::gpu_count();
  if (count == 0) throw ResourceError("miRanda on the GPU: " + gpu::no_gpu_reason());
  if (device < 0 || device >= count)
    throw ResourceError(fmt::format("miRanda on the GPU: no GPU {} (this machine has {})", device, count));
}

// RAII pair of CUDA events.
struct Events {
  cudaEvent_t start = nullptr, stop = nullptr;
  Events() {
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~Events() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
};

struct Found {
  std::size_t query = 0, target = 0;
  Candidate cand;
};

}  // namespace

std::vector<PairCandidates> scan_candidates_gpu(const SeqView* queries, std::size_t n_queries,
                                                const SeqView* targets, std::size_t n_targets,
                                                const ScoreModel& model, const GpuScanOptions& options,
                                                GpuScanStats* stats) {
  GpuScanStats st;
  std::vector<Found> found;
  const int threshold = std::max(model.threshold, 1);
  if (max_positive_span(1, model) < 0)
    throw Error(ExitCode::internal, "miranda gpu: gap costs must be negative for the scan");
  if (options.chunk_columns < 0) throw UsageError("miranda gpu: chunk_columns must be >= 0");

  // Which queries go where.
  std::vector<std::size_t> gpu_q, cpu_q;
  for (std::size_t q = 0; q < n_queries; ++q) {
    const int lq = static_cast<int>(std::min<std::size_t>(queries[q].length, 1u << 30));
    if (lq == 0 || threshold > max_cell_gain(lq, model)) continue;  // no cell can reach the threshold
    if (knl::rows_variant(lq) > 0 && scan_fits_16bit(lq, model))
      gpu_q.push_back(q);
    else
      cpu_q.push_back(q);
  }
  long long total_columns = 0;
  for (std::size_t t = 0; t < n_targets; ++t) {
    if (targets[t].length > (std::size_t{1} << 30)) throw InputError("miranda: a target is longer than 2^30 bases");
    total_columns += static_cast<long long>(targets[t].length);
  }

  if (!gpu_q.empty() && total_columns > 0) {
    require_device(options.device);
    CUDA_CHECK(cudaSetDevice(options.device));
    int sms = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, options.device));

    // Queries: codes, lengths, warm-ups.
    std::vector<std::uint8_t> qcodes;
    std::vector<std::uint64_t> qoff;
    std::vector<std::int32_t> qlen, qwarm;
    int max_warm = 0;
    for (const std::size_t q : gpu_q) {
      const int lq = static_cast<int>(queries[q].length);
      qoff.push_back(qcodes.size());
      for (int k = 0; k < lq; ++k) qcodes.push_back(std::min<std::uint8_t>(queries[q].codes[k], 4));
      qlen.push_back(lq);
      const int warm = max_positive_span(lq, model) + 2;  // the CPU scan's rule
      qwarm.push_back(warm);
      max_warm = std::max(max_warm, warm);
    }
    // Targets: one stream of codes.
    std::vector<std::uint8_t> tcodes;
    std::vector<std::uint64_t> toff;
    tcodes.reserve(static_cast<std::size_t>(total_columns));
    for (std::size_t t = 0; t < n_targets; ++t) {
      toff.push_back(tcodes.size());
      for (std::size_t k = 0; k < targets[t].length; ++k) tcodes.push_back(std::min<std::uint8_t>(targets[t].codes[k], 4));
    }
    // Chunk length: enough chunks to fill the GPU (about 1024 threads per multiprocessor, two chunks
    // each), but at least 4 warm-ups long so that warm-ups stay a small part of the work.
    int chunk = options.chunk_columns;
    if (chunk == 0) {
      const long long wanted_per_query =
          std::max<long long>(1, 2048LL * sms / static_cast<long long>(gpu_q.size()));
      const long long len = (total_columns + wanted_per_query - 1) / wanted_per_query;
      chunk = static_cast<int>(std::clamp<long long>(len, 4LL * max_warm, 1LL << 20));
    }
    st.chunk_columns = chunk;
    std::vector<knl::Chunk> chunks;
    for (std::size_t t = 0; t < n_targets; ++t) {
      const long long len = static_cast<long long>(targets[t].length);
      for (long long b = 1; b <= len; b += chunk)
        chunks.push_back(knl::Chunk{static_cast<std::uint32_t>(t), static_cast<std::int32_t>(b),
                                    static_cast<std::int32_t>(std::min(len, b + chunk - 1))});
    }
    while (chunks.size() % knl::kChunksPerBlock != 0) chunks.push_back(knl::Chunk{0, 1, 0});
    const std::size_t chunk_blocks = chunks.size() / knl::kChunksPerBlock;

    // Blocks, grouped by row variant (one launch each).
    struct Launch {
      int rows = 0;
      std::size_t first = 0, count = 0;
    };
    std::vector<knl::Block> blocks;
    std::vector<Launch> launches;
    for (const int rows : {24, 32, 64}) {
      Launch l{rows, blocks.size(), 0};
      for (std::size_t k = 0; k < gpu_q.size(); ++k) {
        if (knl::rows_variant(qlen[k]) != rows) continue;
        for (std::size_t b = 0; b < chunk_blocks; ++b)
          blocks.push_back(knl::Block{static_cast<std::uint32_t>(k),
                                      static_cast<std::uint32_t>(b * knl::kChunksPerBlock)});
      }
      l.count = blocks.size() - l.first;
      if (l.count > 0x7fffffffu) throw ResourceError("miranda gpu: too many blocks for one launch");
      if (l.count > 0) launches.push_back(l);
    }
    if (blocks.size() > 0xffffffffu || n_targets > 0xffffffffu)
      throw ResourceError("miranda gpu: batch too large for one scan; split the queries");

    gpu::DeviceBuffer<std::uint8_t> d_qcodes, d_tcodes;
    gpu::DeviceBuffer<std::uint64_t> d_qoff, d_toff;
    gpu::DeviceBuffer<std::int32_t> d_qlen, d_qwarm;
    gpu::DeviceBuffer<knl::Chunk> d_chunks;
    gpu::DeviceBuffer<knl::Block> d_blocks;
    gpu::DeviceBuffer<unsigned long long> d_count(1);
    d_qcodes.upload(qcodes);
    d_tcodes.upload(tcodes);
    d_qoff.upload(qoff);
    d_toff.upload(toff);
    d_qlen.upload(qlen);
    d_qwarm.upload(qwarm);
    d_chunks.upload(chunks);
    d_blocks.upload(blocks);

    std::size_t capacity = std::max<std::size_t>(options.initial_capacity, 1);
    Events ev;
    std::vector<knl::RawCandidate> raw;
    for (int attempt = 0;; ++attempt) {
      gpu::DeviceBuffer<knl::RawCandidate> d_out(capacity);
      d_count.fill_zero();
      knl::ScanArgs a;
      a.query_codes = d_qcodes.get();
      a.query_offset = d_qoff.get();
      a.query_length = d_qlen.get();
      a.query_warm = d_qwarm.get();
      a.target_codes = d_tcodes.get();
      a.target_offset = d_toff.get();
      a.chunks = d_chunks.get();
      a.model = model;
      a.threshold = threshold;
      a.out = d_out.get();
      a.capacity = static_cast<std::uint32_t>(std::min<std::size_t>(capacity, 0xffffffffu));
      a.count = d_count.get();
      CUDA_CHECK(cudaEventRecord(ev.start));
      for (const Launch& l : launches) {
        a.rows = l.rows;
        a.blocks = d_blocks.get() + l.first;
        a.n_blocks = static_cast<std::uint32_t>(l.count);
        knl::launch_scan(a, nullptr);
        ++st.launches;
      }
      CUDA_CHECK(cudaEventRecord(ev.stop));
      unsigned long long count = 0;
      CUDA_CHECK(cudaMemcpy(&count, d_count.get(), sizeof(count), cudaMemcpyDeviceToHost));
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, ev.start, ev.stop));
      st.kernel_ms = ms;
      if (count <= capacity) {
        raw.resize(static_cast<std::size_t>(count));
        d_out.download(raw.data(), raw.size());
        CUDA_CHECK(cudaDeviceSynchronize());
        break;
      }
      if (count > 0xffffffffULL) throw ResourceError("miranda gpu: more than 2^32 candidate cells in one scan");
      ++st.retries;
      capacity = static_cast<std::size_t>(count + count / 8 + 1024);
    }
    found.reserve(raw.size());
    for (const knl::RawCandidate& r : raw) {
      Found f;
      f.query = gpu_q[r.query];
      f.target = chunks[r.chunk].target;
      f.cand = Candidate{r.score_state >> 2, r.i, r.j, static_cast<std::uint8_t>(r.score_state & 3)};
      found.push_back(f);
    }
    st.gpu_queries = gpu_q.size();
  }

  // The queries the kernel does not take: the CPU scan, target by target.
  for (const std::size_t q : cpu_q) {
    for (std::size_t t = 0; t < n_targets; ++t) {
      if (targets[t].length == 0) continue;
      for (const Candidate& c : scan_candidates(queries[q], targets[t], model)) found.push_back(Found{q, t, c});
    }
  }
  st.cpu_queries = cpu_q.size();
  st.candidates = found.size();

  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
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
