// miRanda fast CPU path, step 1: lane packing, ISA dispatch, and the scalar and SSE2 instantiations
// of the scan kernel (cpu_scan_kernel.hpp). The AVX2 instantiation is in cpu_scan_avx2.cpp.
#include "stages/miranda/cpu_scan.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "common/error.hpp"

#if defined(__x86_64__) || defined(_M_X64)
#define SCREEN_MIRANDA_X86 1
#include <emmintrin.h>
#endif

#define SCREEN_MIRANDA_SCAN_KERNEL
#include "stages/miranda/cpu_scan_kernel.hpp"

namespace screen::miranda {

namespace scan_detail {
namespace {

// Portable path: one lane of 32-bit integers (also exact where 16 bits are not enough).
struct ScalarOps {
  using V = int;
  using E = int;
  static constexpr int L = 1;
  static V zero() { return 0; }
  static V set1(int x) { return x; }
  static V add(V a, V b) { return a + b; }
  static V max(V a, V b) { return a > b ? a : b; }
  static V keep(V v, V mask) { return mask != 0 ? v : 0; }
  static V load_mask(const std::int16_t* p) { return *p; }
  static bool any_gt(V a, V b) { return a > b; }
  static void store(E* p, V v) { *p = v; }
  static void prepare(const ScanJob&, V*) {}
  static void profiles(const ScanJob& job, const V*, const std::int16_t* idx, V* prof) {
    const int code = idx[0] & 0xFF;
    for (int k = 0; k < job.n_combos; ++k) prof[job.combos[k]] = job.score[job.combos[k]][code];
  }
};

#ifdef SCREEN_MIRANDA_X86
// SSE2 (baseline on x86-64): 8 lanes of 16 bits. Scores by masks: per column, one comparison per
// target code, then each profile is the OR of its five masked score vectors.
struct Sse2Ops {
  using V = __m128i;
  using E = std::int16_t;
  static constexpr int L = 8;
  static V zero() { return _mm_setzero_si128(); }
  static V set1(int x) { return _mm_set1_epi16(static_cast<short>(x)); }
  static V add(V a, V b) { return _mm_adds_epi16(a, b); }
  static V max(V a, V b) { return _mm_max_epi16(a, b); }
  static V keep(V v, V mask) { return _mm_and_si128(v, mask); }
  static V load_mask(const std::int16_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
  static bool any_gt(V a, V b) { return _mm_movemask_epi8(_mm_cmpgt_epi16(a, b)) != 0; }
  static void store(E* p, V v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
  // tables[k * 5 + b] = s of profile k against target code b, in every lane.
  static void prepare(const ScanJob& job, V* tables) {
    for (int k = 0; k < kCombos; ++k)
      for (int b = 0; b < 5; ++b) tables[k * 5 + b] = set1(job.score[k][b]);
  }
  static void profiles(const ScanJob& job, const V* tables, const std::int16_t* idx, V* prof) {
    const V codes = _mm_and_si128(load_mask(idx), set1(0xFF));
    V eq[5];
    for (int b = 0; b < 5; ++b) eq[b] = _mm_cmpeq_epi16(codes, set1(b));
    for (int k = 0; k < job.n_combos; ++k) {
      const V* t = tables + job.combos[k] * 5;
      V v = _mm_and_si128(eq[0], t[0]);
      for (int b = 1; b < 5; ++b) v = _mm_or_si128(v, _mm_and_si128(eq[b], t[b]));
      prof[job.combos[k]] = v;
    }
  }
};
#endif

}  // namespace

void scan_scalar(const ScanJob& job, void* work) { scan_kernel<ScalarOps>(job, work); }
#ifdef SCREEN_MIRANDA_X86
void scan_sse2(const ScanJob& job, void* work) { scan_kernel<Sse2Ops>(job, work); }
#endif

}  // namespace scan_detail

// ---- dispatch -------------------------------------------------------------------------------------

const char* scan_isa_name(ScanIsa isa) {
  switch (isa) {
    case ScanIsa::automatic: return "auto";
    case ScanIsa::scalar: return "scalar";
    case ScanIsa::sse2: return "sse2";
    case ScanIsa::avx2: return "avx2";
  }
  return "?";
}

bool scan_isa_available(ScanIsa isa) {
  switch (isa) {
    case ScanIsa::automatic:
    case ScanIsa::scalar: return true;
#ifdef SCREEN_MIRANDA_X86
    case ScanIsa::sse2: return true;
    case ScanIsa::avx2: return __builtin_cpu_supports("avx2") != 0;
#else
    case ScanIsa::sse2:
    case ScanIsa::avx2: return false;
#endif
  }
  return false;
}

ScanIsa best_scan_isa() {
  if (scan_isa_available(ScanIsa::avx2)) return ScanIsa::avx2;
  if (scan_isa_available(ScanIsa::sse2)) return ScanIsa::sse2;
  return ScanIsa::scalar;
}

ScanIsa resolve_scan_isa(ScanIsa isa) {
  if (isa == ScanIsa::automatic) return best_scan_isa();
  if (!scan_isa_available(isa))
    throw Error(ExitCode::internal, std::string("miranda: the ") + scan_isa_name(isa) +
                                        " scan is not available on this CPU or build");
  return isa;
}

int scan_lanes(ScanIsa isa) {
  switch (resolve_scan_isa(isa)) {
    case ScanIsa::avx2: return 16;
    case ScanIsa::sse2: return 8;
    default: return 1;
  }
}

// ---- bounds -----------------------------------------------------------------------------------------

int max_cell_gain(int lq, const ScoreModel& m) {
  int gain = 0;
  for (int i = 1; i <= lq; ++i) {
    const RowKind k = row_kind(i, lq);
    if (k == kRowZero) continue;
    int best = 0;
    for (int a = 0; a < 5; ++a)
      for (int b = 0; b < 5; ++b) best = std::max(best, k == kRowSeed ? m.seed[a][b] : m.plain[a][b]);
    gain += best;
  }
  return gain;
}

bool scan_fits_16bit(int lq, const ScoreModel& m) {
  if (lq < 1 || lq > 4096) return false;
  if (max_positive_span(lq, m) < 0) return false;  // a gap costs nothing: values unbounded
  for (int a = 0; a < 5; ++a) {
    for (int b = 0; b < 5; ++b) {
      if (m.plain[a][b] < -128 || m.plain[a][b] > 127) return false;
      if (m.seed[a][b] < -128 || m.seed[a][b] > 127) return false;
    }
  }
  if (max_cell_gain(lq, m) + 127 > 32767) return false;
  const long long lowest = -32768;
  if (static_cast<long long>(m.open) + m.extend < lowest) return false;
  if (static_cast<long long>(m.seed_open) + m.seed_extend < lowest) return false;
  return true;
}

// ---- lane packing -------------------------------------------------------------------------------------

namespace {

using Segment = ScanSegment;

struct Sink {
  const std::vector<std::vector<Segment>>* lanes = nullptr;
  std::vector<TargetCandidate>* out = nullptr;
};

void emit_candidate(void* p, int lane, int step, int row, int score, int state) {
  const Sink& sink = *static_cast<const Sink*>(p);
  const std::vector<Segment>& segs = (*sink.lanes)[static_cast<std::size_t>(lane)];
  auto it = std::upper_bound(segs.begin(), segs.end(), step,
                             [](int s, const Segment& g) { return s < g.step0; });
  if (it == segs.begin()) return;
  --it;
  const long long col = static_cast<long long>(it->ws) + (step - it->step0);
  if (col < it->rb || col > it->re) return;  // warm-up, or padding after the lane's last segment
  sink.out->push_back(TargetCandidate{it->target, Candidate{score, row, static_cast<int>(col),
                                                            static_cast<std::uint8_t>(state)}});
}

// Cuts the pieces into lane quotas and fills ws.lanes, ws.steps, ws.idx and the resets.
void build_layout(const SeqView* targets, const ScanPiece* pieces, std::size_t n_pieces, long long total, int lanes,
                  int warm, ScanWorkspace& ws) {
  using scan_detail::encode_code;
  ws.key_targets = nullptr;  // invalid until complete
  // Lane quotas of reported columns; short streams use fewer lanes so that warm-ups stay small.
  long long quota = (total + lanes - 1) / lanes;
  if (warm >= 0) quota = std::max(quota, 4LL * warm);
  std::vector<std::vector<Segment>>& lane_segs = ws.lanes;
  lane_segs.assign(static_cast<std::size_t>(lanes), {});
  std::vector<long long> lane_steps(static_cast<std::size_t>(lanes), 0);
  std::size_t p = 0;
  while (p < n_pieces && pieces[p].col_end < pieces[p].col_begin) ++p;
  long long pos = p < n_pieces ? pieces[p].col_begin : 0;
  for (int lane = 0; lane < lanes && p < n_pieces; ++lane) {
    long long left = quota;
    while (left > 0 && p < n_pieces) {
      const ScanPiece& piece = pieces[p];
      const long long take = std::min<long long>(piece.col_end - pos + 1, left);
      Segment s;
      s.target = piece.target;
      s.rb = static_cast<int>(pos);
      s.re = static_cast<int>(pos + take - 1);
      s.ws = warm < 0 ? 1 : std::max(1, s.rb - warm);
      const auto l = static_cast<std::size_t>(lane);
      if (lane_steps[l] > INT_MAX / 2) throw Error(ExitCode::internal, "miranda: scan block too large");
      s.step0 = static_cast<int>(lane_steps[l]);
      lane_steps[l] += s.re - s.ws + 1;
      lane_segs[l].push_back(s);
      left -= take;
      pos += take;
      if (pos > piece.col_end) {
        ++p;
        while (p < n_pieces && pieces[p].col_end < pieces[p].col_begin) ++p;
        pos = p < n_pieces ? pieces[p].col_begin : 0;
      }
    }
  }
  const long long steps = *std::max_element(lane_steps.begin(), lane_steps.end());
  if (steps > INT_MAX / 2) throw Error(ExitCode::internal, "miranda: scan block too large");

  // Encoded target codes, step-major; padding is N.
  const auto L = static_cast<std::size_t>(lanes);
  ws.idx.assign(static_cast<std::size_t>(steps) * L, encode_code(4));
  std::vector<std::pair<int, int>> resets;  // (step, lane)
  for (std::size_t l = 0; l < L; ++l) {
    for (const Segment& s : lane_segs[l]) {
      const std::uint8_t* codes = targets[s.target].codes;
      std::int16_t* dst = ws.idx.data() + static_cast<std::size_t>(s.step0) * L + l;
      for (int col = s.ws; col <= s.re; ++col, dst += L) *dst = encode_code(codes[col - 1]);
      if (s.step0 > 0) resets.emplace_back(s.step0, static_cast<int>(l));
    }
  }
  std::sort(resets.begin(), resets.end());
  ws.reset_steps.clear();
  ws.reset_masks.clear();
  for (const auto& [step, lane] : resets) {
    if (ws.reset_steps.empty() || ws.reset_steps.back() != step) {
      ws.reset_steps.push_back(step);
      ws.reset_masks.insert(ws.reset_masks.end(), L, static_cast<std::int16_t>(-1));
    }
    ws.reset_masks[ws.reset_masks.size() - L + static_cast<std::size_t>(lane)] = 0;
  }
  ws.steps = steps;
  ws.key_pieces.assign(pieces, pieces + n_pieces);
  ws.key_lanes = lanes;
  ws.key_span = warm;
  ws.key_targets = targets;
}

}  // namespace

void scan_candidates(const SeqView& query, const SeqView* targets, const ScanPiece* pieces,
                     std::size_t n_pieces, const ScoreModel& m, ScanIsa isa,
                     std::vector<TargetCandidate>& out, ScanWorkspace& ws) {
  using namespace scan_detail;
  if (query.length == 0 || query.length > static_cast<std::size_t>(1) << 20) {
    if (query.length == 0) return;
    throw Error(ExitCode::input, "miranda: query too long");
  }
  const int lq = static_cast<int>(query.length);
  const int span = max_positive_span(lq, m);
  const int threshold = std::max(m.threshold, 1);
  if (span >= 0 && threshold > max_cell_gain(lq, m)) return;  // no cell can reach the threshold
  isa = resolve_scan_isa(isa);
  if (isa != ScanIsa::scalar && !scan_fits_16bit(lq, m)) isa = ScanIsa::scalar;
  const int lanes = scan_lanes(isa);

  long long total = 0;
  for (std::size_t p = 0; p < n_pieces; ++p) {
    const ScanPiece& piece = pieces[p];
    if (piece.col_end < piece.col_begin) continue;
    if (piece.col_begin < 1 || static_cast<std::size_t>(piece.col_end) > targets[piece.target].length)
      throw Error(ExitCode::internal, "miranda: scan piece out of the target's range");
    total += piece.col_end - piece.col_begin + 1;
  }
  if (total == 0) return;

  // Warm-up columns before a lane's first reported column: at least max_positive_span + 2, rounded
  // up so that queries of similar lengths share one layout; -1: from the target's first column.
  const int warm = span < 0 ? -1 : (span + 2 + 31) / 32 * 32;
  const bool same_layout = ws.key_targets == targets && ws.key_lanes == lanes && ws.key_span == warm &&
                           ws.key_pieces.size() == n_pieces &&
                           std::equal(pieces, pieces + n_pieces, ws.key_pieces.begin(),
                                      [](const ScanPiece& a, const ScanPiece& b) {
                                        return a.target == b.target && a.col_begin == b.col_begin &&
                                               a.col_end == b.col_end;
                                      });
  if (!same_layout) build_layout(targets, pieces, n_pieces, total, lanes, warm, ws);
  const long long steps = ws.steps;

  // The query's rows: profile per row, gap costs, scores.
  std::vector<std::uint8_t> row_combo(static_cast<std::size_t>(lq) + 1, kComboZero);
  ScanJob job;
  bool used[kCombos] = {};
  for (int i = 1; i <= lq; ++i) {
    const std::uint8_t qc = std::min<std::uint8_t>(query.codes[lq - i], 4);
    const RowKind k = row_kind(i, lq);
    const int c = k == kRowZero ? kComboZero : k == kRowSeed ? kComboSeed + qc : kComboPlain + qc;
    row_combo[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(c);
    used[c] = true;
  }
  for (int c = 1; c < kCombos; ++c) {
    if (used[c]) job.combos[job.n_combos++] = static_cast<std::uint8_t>(c);
    for (int b = 0; b < 5; ++b) {
      const int q = c >= kComboSeed ? c - kComboSeed : c - kComboPlain;
      const int s = c >= kComboSeed ? m.seed[q][b] : m.plain[q][b];
      job.score[c][b] = s;
      job.shuffle[c][b] = static_cast<std::int8_t>(s);
      job.shuffle[c][8 + b] = static_cast<std::int8_t>(s < 0 ? -1 : 0);
    }
  }
  job.lq = lq;
  job.seed_lo = std::max(1, lq - kSeedRowsFromEnd + 1);
  job.open = m.open;
  job.ext = m.extend;
  job.seed_open = m.seed_open;
  job.seed_ext = m.seed_extend;
  job.threshold = threshold;
  job.row_combo = row_combo.data();
  job.steps = static_cast<int>(steps);
  job.idx = ws.idx.data();
  job.n_resets = static_cast<int>(ws.reset_steps.size());
  job.reset_steps = ws.reset_steps.data();
  job.reset_masks = ws.reset_masks.data();
  Sink sink{&ws.lanes, &out};
  job.sink = &sink;
  job.emit = &emit_candidate;

  ws.work.resize(work_bytes(lq) + 64);
  void* work = ws.work.data();
  std::size_t room = ws.work.size();
  work = std::align(64, work_bytes(lq), work, room);
  switch (isa) {
#ifdef SCREEN_MIRANDA_X86
    case ScanIsa::avx2: scan_avx2(job, work); break;
    case ScanIsa::sse2: scan_sse2(job, work); break;
#endif
    default: scan_scalar(job, work); break;
  }
}

std::vector<Candidate> scan_candidates(const SeqView& query, const SeqView& target, const ScoreModel& m,
                                       ScanIsa isa) {
  std::vector<TargetCandidate> found;
  ScanWorkspace ws;
  constexpr int kBlock = 1 << 20;  // bounds the step array of one scan
  const long long lr = static_cast<long long>(target.length);
  for (long long begin = 1; begin <= lr; begin += kBlock) {
    const ScanPiece piece{0, static_cast<int>(begin), static_cast<int>(std::min(lr, begin + kBlock - 1))};
    scan_candidates(query, &target, &piece, 1, m, isa, found, ws);
  }
  std::vector<Candidate> out;
  out.reserve(found.size());
  for (const TargetCandidate& c : found) out.push_back(c.cand);
  std::sort(out.begin(), out.end(), [](const Candidate& x, const Candidate& y) {
    return x.i != y.i ? x.i < y.i : x.j < y.j;
  });
  return out;
}

}  // namespace screen::miranda
