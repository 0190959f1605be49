#pragma once
// Host side of the duplex energies on the GPU (kernels/energy/): many strings per launch, one warp
// per string, energies only. Strings the kernel does not take (longer than kMaxGpuDuplex = 128
// letters, or one whose values left the kernel's 16-bit cells, or every string of a model whose loop
// terms exceed the kernel's bounds) are folded by the CPU fast path (DuplexFolder) in collect(), so
// that every string gets exactly the CPU's energy. Tested equal to the CPU path on miRanda's vectors
// and random strands (tests/gpu). Built only with CUDA; without it, gpu_available() is false and
// the constructor throws ResourceError.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "stages/energy/energy_model.hpp"
#include "stages/energy/reference.hpp"

namespace screen::energy {

// Whether this build has the GPU path and a usable GPU.
bool gpu_available();

struct GpuFoldStats {
  std::size_t strings = 0;   // strings folded (both ways)
  std::size_t on_cpu = 0;    // of them, folded by the CPU fallback
  int launches = 0;          // kernel launches (one per length class per batch)
  double kernel_ms = 0;      // device time of the launches (events), summed
};

// One batch at a time on one GPU: submit() packs, uploads and launches (returns at once),
// collect() waits and writes the energies. Buffers grow as batches need and are kept. Several
// folders may share a GPU (each has its own stream), e.g. two that alternate so that one batch's
// energies run while the caller prepares the next.
class GpuDuplexFolder {
 public:
  explicit GpuDuplexFolder(int device = 0);
  ~GpuDuplexFolder();
  GpuDuplexFolder(const GpuDuplexFolder&) = delete;
  GpuDuplexFolder& operator=(const GpuDuplexFolder&) = delete;

  // The strings letters[offsets[k] .. offsets[k+1]), k < count, as written (the tetraloop bonus reads
  // case and T), under model m. The letters are copied; m must stay alive until collect().
  // with_tables: the kernel also keeps each string's tables, for structures (fold_structures_gpu).
  void submit(const char* letters, const std::uint64_t* offsets, std::size_t count, const Model& m,
              bool with_tables = false);
  // Waits for the submitted batch; out[k] = the energy of string k (0.01 kcal/mol). `threads` for
  // the CPU fallback (0: OpenMP's default).
  void collect(int* out, int threads = 0);
  // Both at once.
  std::vector<int> energies(const std::vector<std::string>& strings, const Model& m, int threads = 0);

  const GpuFoldStats& stats() const;

  // After collect() of a batch submitted with tables: string k's tables as the kernel left them
  // (C + terminal AU and M, 16-bit, kernels/energy/duplex_launch.hpp's triangle layout; F), or false
  // when the CPU folded it.
  struct Tables {
    int n = 0;
    const std::int16_t* cau = nullptr;
    const std::int16_t* m = nullptr;
    const std::int32_t* f = nullptr;
  };
  bool tables(std::size_t k, Tables& out) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// MFE and one MFE structure of each string (as fold_reference gives them): the tables filled on the
// GPU, the structure traced on the CPU from them by the reference's traceback (threads); strings
// the kernel does not take, by fold_reference.
std::vector<FoldResult> fold_structures_gpu(const std::vector<std::string>& strings, const Model& m, int device = 0,
                                            int threads = 0);

}  // namespace screen::energy
