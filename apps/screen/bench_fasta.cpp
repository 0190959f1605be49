// `screen bench fasta`: writes a temporary FASTA of random RNA (a few kb per record, 60-letter
// lines; gzip with --gzip) in $TMPDIR, times read_fasta on it, prints a table, removes the file.
#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <cstring>
#include <memory>
#include <random>
#include <string>

#include "apps/screen/cli.hpp"
#include "common/error.hpp"
#include "seq/sequence_set.hpp"

namespace screen::cli {
namespace {

struct BenchFastaOptions {
  std::size_t size_mb = 256;
  bool gzip = false;
  int gzip_level = 6;
  int repeat = 3;
};

// Removes the file when the benchmark ends, however it ends.
double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct TempFile {
  std::string path;
  ~TempFile() {
    if (!path.empty()) std::remove(path.c_str());
  }
};

// Random records of 1000..5000 bases until the text reaches `bytes`; returns the record count.
std::size_t write_random_fasta(int fd, const std::string& path, std::size_t bytes, bool gzip, int level) {
  std::FILE* plain = nullptr;
  gzFile gz = nullptr;
  if (gzip) {
    gz = gzdopen(fd, ("wb" + std::to_string(level)).c_str());
    if (gz) gzbuffer(gz, 1u << 20);
  } else {
    plain = fdopen(fd, "wb");
  }
  if (!gz && !plain) {
    close(fd);
    throw ResourceError(path + ": cannot open for writing: " + std::strerror(errno));
  }
  std::string buf;
  buf.reserve((1u << 20) + 8192);
  bool ok = true;
  auto flush = [&] {
    if (buf.empty()) return;
    if (gz)
      ok = ok && gzwrite(gz, buf.data(), static_cast<unsigned>(buf.size())) == static_cast<int>(buf.size());
    else
      ok = ok && std::fwrite(buf.data(), 1, buf.size(), plain) == buf.size();
    buf.clear();
  };
  std::mt19937_64 rng(20240601);
  std::uniform_int_distribution<std::size_t> length(1000, 5000);
  static constexpr char kLetters[4] = {'A', 'C', 'G', 'U'};
  std::size_t written = 0, records = 0;
  while (written < bytes) {
    const std::size_t before = buf.size();
    buf += fmt::format(">bench_{} random sequence\n", records++);
    const std::size_t n = length(rng);
    std::uint64_t bits = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (i % 32 == 0) bits = rng();
      buf += kLetters[bits & 3u];
      bits >>= 2;
      if ((i + 1) % 60 == 0 || i + 1 == n) buf += '\n';
    }
    written += buf.size() - before;
    if (buf.size() >= (1u << 20)) flush();
  }
  flush();
  const bool closed = gz ? gzclose(gz) == Z_OK : std::fclose(plain) == 0;
  if (!ok || !closed) throw ResourceError(path + ": cannot write the benchmark file (disk full?)");
  return records;
}

int run_bench_fasta(const BenchFastaOptions& opt) {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/screen-bench-fasta-XXXXXX";
  const int fd = mkstemp(tmpl.data());
  if (fd < 0) throw ResourceError(tmpl + ": cannot create a temporary file: " + std::strerror(errno));
  TempFile file{tmpl};

  const std::size_t target = opt.size_mb << 20;
  fmt::print("writing {} MiB of random FASTA{} to {} ...\n", opt.size_mb,
             opt.gzip ? fmt::format(" (gzip level {})", opt.gzip_level) : "", file.path);
  const std::size_t records = write_random_fasta(fd, file.path, target, opt.gzip, opt.gzip_level);

  // CPU seconds beside wall seconds: on a shared machine the two differ, and the CPU rate is the reader's own.
  fmt::print("{:>5} {:>10} {:>10} {:>9} {:>12} {:>8} {:>8} {:>11} {:>11} {:>11}\n", "run", "file MiB", "FASTA MiB",
             "records", "bases", "seconds", "cpu s", "FASTA MB/s", "file MB/s", "cpu MB/s");
  for (int run = 1; run <= opt.repeat; ++run) {
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = process_cpu_seconds();
    const seq::SequenceSet set = seq::read_fasta(file.path);
    const double cpu = process_cpu_seconds() - cpu0;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (set.size() != records)
      throw Error(ExitCode::internal, fmt::format("read {} records, wrote {}", set.size(), records));
    std::FILE* f = std::fopen(file.path.c_str(), "rb");
    long file_bytes = 0;
    if (f) {
      std::fseek(f, 0, SEEK_END);
      file_bytes = std::ftell(f);
      std::fclose(f);
    }
    // The FASTA text size: the codes plus one newline per 60 bases and the header lines, as written.
    std::size_t text_bytes = 0;
    for (std::size_t r = 0; r < set.size(); ++r)
      text_bytes += set.length(r) + (set.length(r) + 59) / 60 + 3 + set.record(r).name.size() +
                    set.record(r).description.size();  // '>', ' ' and '\n' around name and description
    const double mb = 1e6;
    fmt::print("{:>5} {:>10.1f} {:>10.1f} {:>9} {:>12} {:>8.3f} {:>8.3f} {:>11.1f} {:>11.1f} {:>11.1f}\n", run,
               static_cast<double>(file_bytes) / (1 << 20), static_cast<double>(text_bytes) / (1 << 20), set.size(),
               set.total_length(), seconds, cpu, static_cast<double>(text_bytes) / mb / seconds,
               static_cast<double>(file_bytes) / mb / seconds, static_cast<double>(text_bytes) / mb / cpu);
  }
  fmt::print("(read_fasta: reading, {}parsing, encoding and SHA-256 of the file in one pass)\n",
             opt.gzip ? "inflating, " : "");
  return 0;
}

}  // namespace

void add_bench_fasta(CLI::App& bench, Action& action) {
  auto* cmd = bench.add_subcommand("fasta", "Benchmark: FASTA reading throughput");
  auto opt = std::make_shared<BenchFastaOptions>();
  cmd->add_option("--size-mb", opt->size_mb, "Size of the generated FASTA text in MiB")
      ->default_val(256)
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_flag("--gzip", opt->gzip, "Write the file gzip-compressed");
  cmd->add_option("--gzip-level", opt->gzip_level, "zlib level for --gzip")->default_val(6)->check(CLI::Range(1, 9));
  cmd->add_option("--repeat", opt->repeat, "Times to read the file")->default_val(3)->check(CLI::Range(1, 100));
  cmd->callback([&action, opt] { action = [opt]() -> int { return run_bench_fasta(*opt); }; });
}

}  // namespace screen::cli
