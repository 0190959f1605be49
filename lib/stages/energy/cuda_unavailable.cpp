// Built instead of cuda.cpp when screen is built without CUDA: no GPU, and the GPU entry points say
// so with a ResourceError.
#include "common/error.hpp"
#include "stages/energy/cuda.hpp"
#include "stages/energy/reference.hpp"

namespace screen::energy {

namespace {
[[noreturn]] void no_cuda() { throw ResourceError("duplex energies on the GPU: this screen was built without CUDA"); }
}  // namespace

bool gpu_available() { return false; }

struct GpuDuplexFolder::Impl {};

GpuDuplexFolder::GpuDuplexFolder(int) { no_cuda(); }
GpuDuplexFolder::~GpuDuplexFolder() = default;
void GpuDuplexFolder::submit(const char*, const std::uint64_t*, std::size_t, const Model&, bool) { no_cuda(); }
void GpuDuplexFolder::collect(int*, int) { no_cuda(); }
std::vector<int> GpuDuplexFolder::energies(const std::vector<std::string>&, const Model&, int) { no_cuda(); }
const GpuFoldStats& GpuDuplexFolder::stats() const { no_cuda(); }
bool GpuDuplexFolder::tables(std::size_t, Tables&) const { no_cuda(); }
std::vector<FoldResult> fold_structures_gpu(const std::vector<std::string>&, const Model&, int, int) { no_cuda(); }

}  // namespace screen::energy
