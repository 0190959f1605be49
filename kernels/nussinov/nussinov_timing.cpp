// nussinov_gpu_timing: times the Nussinov GPU path for the notes, and checks what it times.
//   nussinov_gpu_timing [--sizes 2000,6000,...] [--ops N] [--hairpins FILE] [--genome FILE]
//                       [--cpu-check-max N] [--reps R]
// --sizes: fold_gpu_long, score only, random sequences (unit weights, min_loop 3); seconds and
//          updates/s (n^3/6 max-plus updates). Scores are checked against fold_cpu up to --cpu-check-max.
// --ops N: compare the add-max variants (DPX viaddmax, plain add+max, vimax3) at n = N, both widths.
// --widths N: the cell formats at n = N (plain 16-bit where it fits, relative 16-bit, 32-bit).
// --priority N,...: finalize's stream priority off/on by split-K waves 1 and 2 at each n.
// --occupancy N,...: the 16-bit panel capped at 3..5 blocks an SM, or not, at each n.
// --fused N,...: split-K slices maxed by finalize (Tuning::fused_slices) by split-K waves, at each n.
// --cap-products N,...: the panel's blocks-an-SM cap only on diagonals up to a number of tile products, at each n.
// --panel-streams N,...: the panels on one stream or on two by the diagonal's parity (Tuning::panel_streams), at each n.
// --fused-uncapped N,...: every split-K slice fused, the panel not capped, both, or neither (the defaults), at each n.
// --hairpins: fold_gpu_batch over a FASTA set, score only and with tracebacks (checked against the reference).
// --genome: fold_gpu_long on the one sequence of a FASTA file, score only and with traceback.
// Exit status 1 if any check fails. Times are printed, never judged.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "kernels/nussinov/nussinov_launch.hpp"
#include "stages/nussinov/cpu.hpp"
#include "stages/nussinov/cuda.hpp"
#include "stages/nussinov/reference.hpp"
#include "stages/nussinov/traceback.hpp"

namespace nu = screen::nussinov;
namespace knl = screen::kernels::nussinov;

namespace {

int failures = 0;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::uint8_t code(char c) {
  switch (c) {
    case 'A': case 'a': return 0;
    case 'C': case 'c': return 1;
    case 'G': case 'g': return 2;
    case 'U': case 'u': case 'T': case 't': return 3;
    default: return 4;
  }
}

std::vector<std::vector<std::uint8_t>> read_fasta(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(2);
  }
  std::vector<std::vector<std::uint8_t>> out;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '>') {
      out.emplace_back();
    } else if (!out.empty()) {
      for (char c : line)
        if (c != '\r' && c != ' ') out.back().push_back(code(c));
    }
  }
  return out;
}

std::vector<std::uint8_t> random_seq(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> s(static_cast<std::size_t>(n));
  for (auto& c : s) c = static_cast<std::uint8_t>(rng() & 3u);
  return s;
}

void check(bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    std::printf("CHECK FAILED: %s\n", what.c_str());
  }
}

double updates(double n) { return n * n * n / 6.0; }

void time_sizes(const std::vector<int>& sizes, int cpu_check_max, int reps) {
  nu::Params p;
  std::printf("\n%-8s %-6s %-12s %-14s %s\n", "n", "cell", "seconds", "updates/s", "check");
  for (int n : sizes) {
    const auto s = random_seq(n, 1000u + static_cast<unsigned>(n));
    double best = 1e30;
    long long score = -1;
    for (int r = 0; r < reps; ++r) {
      const double t0 = now();
      const auto res = nu::fold_gpu_long(s.data(), n, p, false);
      best = std::min(best, now() - t0);
      score = res.score;
    }
    std::string chk = "-";
    if (n <= cpu_check_max) {
      const auto c = nu::fold_cpu(s.data(), n, p, false);
      check(c.score == score, "n=" + std::to_string(n) + " gpu score " + std::to_string(score) + " cpu " +
                                  std::to_string(c.score));
      chk = c.score == score ? "== fold_cpu" : "MISMATCH";
    }
    std::printf("%-8d %-6d %-12.4f %-14.3e %s (score %lld)\n", n, knl::cell_bytes_for(n, p) * 8, best,
                updates(n) / best, chk.c_str(), score);
    std::fflush(stdout);
  }
}

// fold_gpu_long under tuning t, best of `reps` (score only); restores nothing (callers reset).
struct Timed {
  double best = 1e30;
  long long score = -1;
};
Timed time_with(const knl::Tuning& t, const std::vector<std::uint8_t>& s, const nu::Params& p, int reps) {
  knl::set_tuning(t);
  Timed r;
  for (int k = 0; k < reps; ++k) {
    const double t0 = now();
    r.score = nu::fold_gpu_long(s.data(), static_cast<int>(s.size()), p, false).score;
    r.best = std::min(r.best, now() - t0);
  }
  return r;
}

void time_widths(int n, int reps) {
  nu::Params p;
  const auto s = random_seq(n, 91u);
  std::printf("\ncell formats at n = %d (fold_gpu_long, score only, best of %d)\n", n, reps);
  std::printf("%-12s %-12s %-14s %s\n", "cells", "seconds", "updates/s", "score");
  struct Format {
    const char* name;
    int cb;
    bool rel;
  };
  long long ref = -1;
  for (const Format f : {Format{"plain 16", 2, false}, Format{"relative 16", 2, true}, Format{"32", 4, false}}) {
    if (!f.rel && f.cb == 2 && nu::max_possible_score(n, p.weights) > 32767) continue;
    knl::Tuning t;
    t.force_cell_bytes = f.cb;
    t.force_relative = f.rel;
    const Timed r = time_with(t, s, p, reps);
    const double best = r.best;
    const long long score = r.score;
    if (ref < 0) ref = score;
    check(score == ref, "cell formats give different scores");
    std::printf("%-12s %-12.4f %-14.3e %lld\n", f.name, best, updates(n) / best, score);
    std::fflush(stdout);
  }
  knl::set_tuning(knl::Tuning{});
}

void time_ops(int n) {
  nu::Params p;
  const auto s = random_seq(n, 77u);
  std::printf("\nadd-max variants at n = %d (fold_gpu_long, score only, best of 3)\n", n);
  std::printf("%-6s %-8s %-12s %-14s %s\n", "cell", "op", "seconds", "updates/s", "score");
  const char* names[] = {"dpx", "plain", "vimax3"};
  for (int cb : {2, 4}) {
    long long ref = -1;
    for (int op = 0; op < 3; ++op) {
      knl::Tuning t;
      t.force_cell_bytes = cb;
      t.op = static_cast<knl::AddMaxOp>(op);
      knl::set_tuning(t);
      double best = 1e30;
      long long score = -1;
      for (int r = 0; r < 3; ++r) {
        const double t0 = now();
        score = nu::fold_gpu_long(s.data(), n, p, false).score;
        best = std::min(best, now() - t0);
      }
      if (ref < 0) ref = score;
      check(score == ref, "op variant score differs");
      std::printf("%-6d %-8s %-12.4f %-14.3e %lld\n", cb * 8, names[op], best, updates(n) / best, score);
      std::fflush(stdout);
    }
  }
  knl::set_tuning(knl::Tuning{});
}

void time_hairpins(const std::string& path) {
  const auto recs = read_fasta(path);
  std::vector<const std::uint8_t*> seqs;
  std::vector<int> lens;
  long long total = 0;
  double upd = 0;
  for (const auto& r : recs) {
    seqs.push_back(r.data());
    lens.push_back(static_cast<int>(r.size()));
    total += static_cast<long long>(r.size());
    upd += updates(static_cast<double>(r.size()));
  }
  nu::Params p;
  nu::fold_gpu_batch(seqs, lens, p, false);  // warm-up
  double t0 = now();
  const auto sc = nu::fold_gpu_batch(seqs, lens, p, false);
  const double t_score = now() - t0;
  t0 = now();
  const auto tb = nu::fold_gpu_batch(seqs, lens, p, true);
  const double t_tb = now() - t0;
  // reference on all cores
  std::vector<nu::FoldResult> ref(recs.size());
  const unsigned nth = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < nth; ++w)
    pool.emplace_back([&, w] {
      for (std::size_t k = w; k < recs.size(); k += nth) ref[k] = nu::fold_reference(seqs[k], lens[k], p, true);
    });
  for (auto& th : pool) th.join();
  int bad = 0;
  for (std::size_t k = 0; k < recs.size(); ++k)
    bad += (sc[k].score != ref[k].score) + (tb[k].score != ref[k].score) + (tb[k].structure != ref[k].structure);
  check(bad == 0, "hairpins differ from the reference: " + std::to_string(bad));
  std::printf("\nhairpins %s: %zu sequences, %lld nt: score only %.4f s (%.3e updates/s), with traceback %.4f s; "
              "reference equal: %s\n",
              path.c_str(), recs.size(), total, t_score, upd / t_score, t_tb, bad == 0 ? "yes" : "NO");
}

// Many transcript-like sequences (uniform lengths 200..3000 nt) in one fold_gpu_batch call, score
// only; 48 of them checked against fold_cpu (one thread each, all cores).
void time_transcripts(int count) {
  std::mt19937 rng(4242u);
  std::vector<std::vector<std::uint8_t>> recs;
  double upd = 0;
  long long total = 0;
  for (int k = 0; k < count; ++k) {
    const int n = 200 + static_cast<int>(rng() % 2801u);
    recs.push_back(random_seq(n, 9000u + static_cast<unsigned>(k)));
    upd += updates(n);
    total += n;
  }
  std::vector<const std::uint8_t*> seqs;
  std::vector<int> lens;
  for (const auto& r : recs) {
    seqs.push_back(r.data());
    lens.push_back(static_cast<int>(r.size()));
  }
  nu::Params p;
  const double t0 = now();
  const auto res = nu::fold_gpu_batch(seqs, lens, p, false);
  const double t = now() - t0;
  std::vector<int> bad(48, 0);
  std::vector<std::thread> pool;
  for (int w = 0; w < 48; ++w)
    pool.emplace_back([&, w] {
      const std::size_t k = static_cast<std::size_t>(w) * recs.size() / 48;
      bad[static_cast<std::size_t>(w)] = nu::fold_cpu(seqs[k], lens[k], p, false, 1).score != res[k].score;
    });
  for (auto& th : pool) th.join();
  int nbad = 0;
  for (int b : bad) nbad += b;
  check(nbad == 0, "transcripts differ from fold_cpu: " + std::to_string(nbad));
  std::printf("\ntranscripts: %d random sequences of 200..3000 nt (%lld nt) in one fold_gpu_batch: %.4f s "
              "(%.3e updates/s); 48 sampled == fold_cpu: %s\n",
              count, total, t, upd / t, nbad == 0 ? "yes" : "NO");
}

void time_genome(const std::string& path, int cpu_check_max) {
  const auto recs = read_fasta(path);
  if (recs.empty()) return;
  const auto& s = recs[0];
  const int n = static_cast<int>(s.size());
  nu::Params p;
  double t0 = now();
  const auto r = nu::fold_gpu_long(s.data(), n, p, false);
  const double t_score = now() - t0;
  t0 = now();
  const auto rt = nu::fold_gpu_long(s.data(), n, p, true);
  const double t_tb = now() - t0;
  check(rt.score == r.score, "genome score with/without traceback");
  check(nu::score_structure(s.data(), n, p, rt.structure) == r.score, "genome structure rescore");
  std::string chk = "rescore ok";
  if (n <= cpu_check_max) {
    const auto c = nu::fold_cpu(s.data(), n, p, false);
    check(c.score == r.score, "genome vs fold_cpu");
    chk += c.score == r.score ? ", == fold_cpu" : ", fold_cpu MISMATCH";
  }
  std::printf("\ngenome %s: n = %d, score %lld: score only %.4f s (%.3e updates/s), with traceback %.4f s; %s\n",
              path.c_str(), n, r.score, t_score, updates(n) / t_score, t_tb, chk.c_str());
}

void compare_lookahead(int n) {
  nu::Params p;
  const auto s = random_seq(n, 79u);
  std::printf("\nschedule at n = %d (best of 3)\n", n);
  long long ref = -1;
  for (int cb : {2, 4})
    for (bool la : {false, true}) {
      knl::Tuning t;
      t.lookahead = la;
      t.force_cell_bytes = cb;
      knl::set_tuning(t);
      double best = 1e30;
      long long score = -1;
      for (int r = 0; r < 3; ++r) {
        const double t0 = now();
        score = nu::fold_gpu_long(s.data(), n, p, false).score;
        best = std::min(best, now() - t0);
      }
      if (ref < 0) ref = score;
      check(score == ref, "schedule variant score differs");
      std::printf("%2d-bit %-22s %.4f s  %.3e updates/s  score %lld\n", cb * 8,
                  la ? "lookahead (2 streams)" : "plain (1 stream)", best, updates(n) / best, score);
    }
  knl::set_tuning(knl::Tuning{});
}

void sweep_waves(int n) {
  nu::Params p;
  const auto s = random_seq(n, 78u);
  std::printf("\nsplit-K target waves at n = %d (16-bit, dpx, best of 3)\n", n);
  for (int waves : {1, 2, 4, 8}) {
    knl::Tuning t;
    t.split_waves = waves;
    knl::set_tuning(t);
    double best = 1e30;
    for (int r = 0; r < 3; ++r) {
      const double t0 = now();
      nu::fold_gpu_long(s.data(), n, p, false);
      best = std::min(best, now() - t0);
    }
    std::printf("waves %-3d %.4f s  %.3e updates/s\n", waves, best, updates(n) / best);
  }
  knl::set_tuning(knl::Tuning{});
}

// One tuning to time, and its row label.
struct Variant {
  knl::Tuning tuning;
  std::string label;
};
// Each variant at each size (random sequence `seed`), best of `reps`, in the order given (lent machines
// drift: lists alternate); every score must equal the first variant's.
void compare_variants(const std::string& title, const std::vector<int>& sizes, int reps, unsigned seed,
                      const std::vector<Variant>& variants) {
  nu::Params p;
  std::printf("\n%s (16-bit, best of %d)\n", title.c_str(), reps);
  for (int n : sizes) {
    const auto s = random_seq(n, seed);
    long long ref = -1;
    for (const Variant& v : variants) {
      const Timed r = time_with(v.tuning, s, p, reps);
      if (ref < 0) ref = r.score;
      check(r.score == ref, title + ": score differs for " + v.label);
      std::printf("n %-7d %-30s %.4f s  %.3e updates/s\n", n, v.label.c_str(), r.best, updates(n) / r.best);
    }
  }
  knl::set_tuning(knl::Tuning{});
}

// Split-K slices folded into finalize (Tuning::fused_slices) by split-K waves.
void compare_fused(const std::vector<int>& sizes, int reps) {
  std::vector<Variant> v;
  for (int waves : {2, 3, 4})
    for (int fused : {1, 4, 8, 16, 1 << 20}) {
      knl::Tuning t;
      t.split_waves = waves;
      t.fused_slices = fused;
      v.push_back({t, "waves " + std::to_string(waves) + " fused up to " + std::to_string(fused)});
    }
  compare_variants("split-K slices maxed by finalize instead of the reduce kernel", sizes, reps, 82u, v);
}

// Stream priority of finalize (off / on) by split-K waves (1, 2).
void compare_priority(const std::vector<int>& sizes, int reps) {
  std::vector<Variant> v;
  for (bool prio : {false, true})
    for (int waves : {1, 2}) {
      knl::Tuning t;
      t.finalize_priority = prio;
      t.split_waves = waves;
      v.push_back({t, std::string("priority ") + (prio ? "on" : "off") + " waves " + std::to_string(waves)});
    }
  compare_variants("finalize stream priority x split-K waves", sizes, reps, 80u, v);
}

// One Tuning field set to each value in turn (the rest defaults), labelled by `label(value)`.
template <class T, class Label>
std::vector<Variant> one_knob(std::initializer_list<T> values, T knl::Tuning::*field, Label label) {
  std::vector<Variant> v;
  for (const T value : values) {
    knl::Tuning t;
    t.*field = value;
    v.push_back({t, label(value)});
  }
  return v;
}

// The panel capped at 3..5 blocks an SM (0: no cap) on every diagonal, finalize priority on.
void compare_occupancy(const std::vector<int>& sizes, int reps) {
  compare_variants("panel capped at N blocks/SM on every diagonal (0: no cap)", sizes, reps, 81u,
                   one_knob({0, 4, 5, 0, 4, 5, 3}, &knl::Tuning::panel_blocks_per_sm,
                            [](int cap) { return "blocks/SM " + std::to_string(cap); }));
}

// The panel's cap of Tuning::panel_blocks_per_sm blocks an SM applied only to diagonals of at most N tile
// products (tiles x K tiles; 0: never capped), so that larger diagonals run their panel at full occupancy.
void compare_cap_products(const std::vector<int>& sizes, int reps) {
  compare_variants("panel capped only on diagonals of at most N tile products", sizes, reps, 83u,
                   one_knob({1LL << 62, 0LL, 2000LL, 8000LL, 20000LL, 1LL << 62}, &knl::Tuning::panel_cap_products,
                            [](long long cap) {
                              return "cap up to " + (cap == (1LL << 62) ? std::string("every diagonal")
                                                                         : std::to_string(cap) + " products");
                            }));
}

// The panels of odd and even diagonals on one stream or two (Tuning::panel_streams), alternating.
void compare_panel_streams(const std::vector<int>& sizes, int reps) {
  compare_variants("the panels on one stream or two", sizes, reps, 84u,
                   one_knob({1, 2, 1, 2}, &knl::Tuning::panel_streams,
                            [](int streams) { return "panel streams " + std::to_string(streams); }));
}

// Every split-K slice fused into finalize and the panel's blocks-an-SM cap off, alone and together, against
// the defaults; two rounds.
void compare_fused_uncapped(const std::vector<int>& sizes, int reps) {
  std::vector<Variant> v;
  for (int round = 0; round < 2; ++round)
    for (int k = 0; k < 4; ++k) {
      knl::Tuning t;
      if (k & 1) t.fused_slices = 1 << 20;
      if (k & 2) t.panel_blocks_per_sm = 0;
      v.push_back({t, std::string(k & 1 ? "every slice fused" : "fused up to 16") + (k & 2 ? ", no cap" : ", capped")});
    }
  compare_variants("every split-K slice fused, the panel not capped", sizes, reps, 85u, v);
}

std::vector<int> parse_list(const std::string& s) {
  std::vector<int> v;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) v.push_back(std::stoi(item));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes, priority_sizes, occupancy_sizes, fused_sizes, cap_sizes, stream_sizes, fu_sizes;
  std::string hairpins, genome;
  int ops_n = 0, widths_n = 0, waves_n = 0, transcripts = 0, cpu_check_max = 10000, reps = 2;
  for (int a = 1; a < argc; ++a) {
    const std::string k = argv[a];
    const std::string v = a + 1 < argc ? argv[a + 1] : "";
    try {
      if (k == "--sizes") sizes = parse_list(v), ++a;
      else if (k == "--ops") ops_n = std::stoi(v), ++a;
      else if (k == "--widths") widths_n = std::stoi(v), ++a;
      else if (k == "--priority") priority_sizes = parse_list(v), ++a;
      else if (k == "--occupancy") occupancy_sizes = parse_list(v), ++a;
      else if (k == "--fused") fused_sizes = parse_list(v), ++a;
      else if (k == "--cap-products") cap_sizes = parse_list(v), ++a;
      else if (k == "--panel-streams") stream_sizes = parse_list(v), ++a;
      else if (k == "--fused-uncapped") fu_sizes = parse_list(v), ++a;
      else if (k == "--waves") waves_n = std::stoi(v), ++a;
      else if (k == "--transcripts") transcripts = std::stoi(v), ++a;
      else if (k == "--hairpins") hairpins = v, ++a;
      else if (k == "--genome") genome = v, ++a;
      else if (k == "--cpu-check-max") cpu_check_max = std::stoi(v), ++a;
      else if (k == "--reps") reps = std::stoi(v), ++a;
      else {
        std::fprintf(stderr, "unknown argument %s\n", k.c_str());
        return 2;
      }
    } catch (const std::logic_error&) {  // std::stoi: not a number, or out of range
      std::fprintf(stderr, "nussinov_gpu_timing: %s needs a number (or a comma-separated list), not '%s'\n", k.c_str(),
                   v.c_str());
      return 2;
    }
  }
  if (!nu::gpu_available()) {
    std::printf("no GPU\n");
    return 2;
  }
  {  // warm-up: module load, context
    const auto s = random_seq(3000, 5u);
    nu::fold_gpu_long(s.data(), 3000, nu::Params{}, false);
  }
  try {
    if (ops_n > 0) time_ops(ops_n);
    if (widths_n > 0) time_widths(widths_n, reps);
    if (!priority_sizes.empty()) compare_priority(priority_sizes, reps);
    if (!occupancy_sizes.empty()) compare_occupancy(occupancy_sizes, reps);
    if (!fused_sizes.empty()) compare_fused(fused_sizes, reps);
    if (!cap_sizes.empty()) compare_cap_products(cap_sizes, reps);
    if (!stream_sizes.empty()) compare_panel_streams(stream_sizes, reps);
    if (!fu_sizes.empty()) compare_fused_uncapped(fu_sizes, reps);
    if (waves_n > 0) compare_lookahead(waves_n);
    if (waves_n > 0) sweep_waves(waves_n);
    if (!sizes.empty()) time_sizes(sizes, cpu_check_max, reps);
    if (!hairpins.empty()) time_hairpins(hairpins);
    if (transcripts > 0) time_transcripts(transcripts);
    if (!genome.empty()) time_genome(genome, cpu_check_max);
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
  std::printf("\n%s\n", failures == 0 ? "all checks passed" : "SOME CHECKS FAILED");
  return failures == 0 ? 0 : 1;
}
