// `screen bench ceiling`: the GPU's measured ceiling for the kernels' max-plus step
// (kernels/ceiling/ceiling_launch.hpp): each instruction form of the register-tiled step alone, on
// every multiprocessor, in max-plus cell updates per second; every form's tiles checked against the
// CPU first. The kernels' rows in the README are given as fractions of the `fused` rows. Then the fused
// 16-bit step by occupancy (blocks and threads a multiprocessor).
#include <fmt/format.h>

#include <memory>
#include <string>

#include "apps/screen/cli.hpp"
#include "common/error.hpp"
#include "gpu/device_info.hpp"
#if SCREEN_HAVE_CUDA
#include "kernels/ceiling/ceiling_launch.hpp"
#endif

namespace screen::cli {

namespace {

struct BenchCeilingOptions {
  int gpu = 0;
  int steps = 8192;
  int reps = 5;
};

#if SCREEN_HAVE_CUDA
// A form's tiles in a shape, before it is timed: block 0 and the last block of a small launch against
// the CPU; `what` names the row in the error.
void check_tiles(kernels::ceiling::Form f, const kernels::ceiling::Shape& shape, int gpu, const std::string& what) {
  namespace kc = kernels::ceiling;
  const kc::Inputs in = kc::make_inputs(20261127);
  const int steps = 2 * kc::kSlots + 4, blocks = 3;
  const std::string wrong = kc::tile_mismatch(kc::final_tiles(f, in, gpu, steps, blocks, shape),
                                              kc::expected_block(in, steps, shape.threads), blocks);
  if (!wrong.empty()) throw Error(ExitCode::internal, fmt::format("bench ceiling: {}: {}", what, wrong));
}
#endif

int run_bench_ceiling(const BenchCeilingOptions& opt) {
  if (gpu::gpu_count() == 0) {
    fmt::print("gpu: {}\n", gpu::no_gpu_reason().empty() ? "no usable GPU" : gpu::no_gpu_reason());
    return 0;
  }
#if SCREEN_HAVE_CUDA
  namespace kc = kernels::ceiling;
  const auto devices = gpu::list_devices();
  if (opt.gpu >= static_cast<int>(devices.size()))
    throw UsageError(fmt::format("bench ceiling: --gpu {}: this machine has {} GPU(s)", opt.gpu, devices.size()));
  const gpu::DeviceInfo& dev = devices[static_cast<std::size_t>(opt.gpu)];
  fmt::print("GPU {}: {}, {} multiprocessors; {} steps of an 8 x 8 micro-tile per thread, 2 blocks of {} threads a "
             "multiprocessor, best of {}\n",
             opt.gpu, dev.name, dev.multiprocessors, opt.steps, kc::kThreads, opt.reps);
  fmt::print("{:<48} {:>10} {:>14} {:>10}\n", "form", "seconds", "updates/s", "vs fused16");
  double fused16 = 0;
  for (const kc::Form f : kc::all_forms()) {
    check_tiles(f, kc::Shape{}, opt.gpu, kc::form_name(f));
    const kc::Timing t = kc::time_form(f, opt.gpu, opt.steps, opt.reps);
    if (f == kc::Form::fused16) fused16 = t.updates_per_s;
    fmt::print(FMT_STRING("{:<48} {:>10.4f} {:>14.3e} {:>9.0f}%\n"), kc::form_name(f), t.seconds, t.updates_per_s,
               100.0 * t.updates_per_s / fused16);
  }
  // The fused 16-bit step by the warps each of the four schedulers has: what a kernel keeps of the
  // ceiling while some of its warps stage (a block at a barrier leaves its schedulers fewer warps).
  fmt::print("\nfused add-max, 16-bit pairs, by the warps a scheduler has\n");
  fmt::print("{:<30} {:>9} {:>9} {:>10} {:>14} {:>10}\n", "blocks x threads a multiproc.", "warps/sch", "resident",
             "seconds", "updates/s", "vs fused16");
  for (const kc::Shape& shape : kc::occupancy_shapes()) {
    check_tiles(kc::Form::fused16, shape, opt.gpu, fmt::format("{} x {}", shape.blocks_per_sm, shape.threads));
    const int resident = kc::resident_blocks(kc::Form::fused16, shape, opt.gpu);
    const kc::Timing t = kc::time_form(kc::Form::fused16, opt.gpu, opt.steps, opt.reps, 8, shape);
    const double warps_per_scheduler = shape.blocks_per_sm * shape.threads / 32.0 / 4.0;  // 4 schedulers an SM since Volta
    fmt::print(FMT_STRING("{:<30} {:>9.1f} {:>9} {:>10.4f} {:>14.3e} {:>9.0f}%\n"),
               fmt::format("{} x {}", shape.blocks_per_sm, shape.threads), warps_per_scheduler, resident, t.seconds,
               t.updates_per_s, 100.0 * t.updates_per_s / fused16);
  }
  return 0;
#else
  (void)opt;
  return 0;
#endif
}

}  // namespace

void add_bench_ceiling(CLI::App& bench, Action& action) {
  auto* cmd = bench.add_subcommand("ceiling",
                                   "Benchmark: the GPU's ceiling for the kernels' max-plus step (updates/s of each "
                                   "instruction form, alone on every multiprocessor)");
  auto opt = std::make_shared<BenchCeilingOptions>();
  cmd->add_option("--gpu", opt->gpu, "The GPU to measure")->capture_default_str()->check(CLI::NonNegativeNumber);
  cmd->add_option("--steps", opt->steps, "Steps of each thread's loop (a multiple of 4)")
      ->capture_default_str()
      ->check(CLI::Range(4, 1 << 24));
  cmd->add_option("--reps", opt->reps, "Timed launches of each form (the best is shown)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  cmd->callback([&action, opt] {
    if (opt->steps % 4 != 0) throw CLI::ValidationError("--steps", "must be a multiple of 4");
    action = [opt]() -> int { return run_bench_ceiling(*opt); };
  });
}

}  // namespace screen::cli
