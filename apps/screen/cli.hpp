#pragma once
// Registration of the subcommands of `screen`. Each cmd_*.cpp adds one subcommand to the app and
// sets `action` (what to run after parsing) from its callback; main() runs it and maps errors.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>

#include "stages/miranda/reference.hpp"
#include "store/tables.hpp"

namespace screen::cli {

using Action = std::function<int()>;

void add_run(CLI::App& app, Action& action);
void add_plan(CLI::App& app, Action& action);
void add_submit(CLI::App& app, Action& action);
void add_status(CLI::App& app, Action& action);
void add_merge(CLI::App& app, Action& action);
void add_export(CLI::App& app, Action& action);
void add_report(CLI::App& app, Action& action);
void add_validate(CLI::App& app, Action& action);
void add_fold(CLI::App& app, Action& action);
void add_interact(CLI::App& app, Action& action);
void add_align(CLI::App& app, Action& action);
void add_bench(CLI::App& app, Action& action);

// `screen bench <stage>`: one file each.
void add_bench_fasta(CLI::App& bench, Action& action);
void add_bench_nussinov(CLI::App& bench, Action& action);
void add_bench_miranda(CLI::App& bench, Action& action);
void add_bench_bpmax(CLI::App& bench, Action& action);
void add_bench_energy(CLI::App& bench, Action& action);
void add_bench_ceiling(CLI::App& bench, Action& action);
// A stored miRanda hit (/miranda/hits) as the Hit the formatters take; with_energy: the run computed
// energies (stored in kcal/mol on a 0.01 grid).
miranda::Hit hit_from_row(const store::MirandaHitRow& r, bool with_energy);

// The results file `output` names: the file itself, or a job folder's results.h5 (InputError, exit 4,
// one line saying what is wrong otherwise).
std::string results_file_of(const std::string& output);

// The miRanda transcriptome case end to end with duplex energies on the GPU (bench miranda's rows),
// for `bench energy --transcriptome`.
void bench_transcriptome_with_energies(const std::string& queries, const std::string& transcriptome, int threads);

// For `--device auto` that runs on the CPU: a warning when the machine has GPUs that this build's GPU code
// cannot run on (gpu::no_gpu_reason names the GPU and the rebuild), so that the slower run is not a surprise.
void warn_unusable_gpus(const std::string& command);

// Throws NotImplementedError: `what` is not in this build; `why` says what brings it or what to use instead.
[[noreturn]] void not_yet(const std::string& what, const std::string& why);

}  // namespace screen::cli
