// miRanda-style alignment reference: the rules of docs/algorithms.md (miRanda), one step per function.
#include "stages/miranda/reference.hpp"

#include <algorithm>
#include <cctype>

#include "common/error.hpp"
#include "seq/alphabet.hpp"
#include "stages/energy/cpu.hpp"
#include "stages/energy/params.hpp"

namespace screen::miranda {

namespace {

int to_int(std::size_t n, const char* what) {
  if (n > static_cast<std::size_t>(1) << 30) {
    throw Error(ExitCode::input, std::string("miranda: ") + what + " too long");
  }
  return static_cast<int>(n);
}

// Letter of a sequence at 0-based position k, upper or lower case.
char display_letter(const SeqView& s, std::size_t k, bool upper) {
  const char c = s.letters != nullptr ? s.letters[k] : seq::base_letter(s.codes[k]);
  const unsigned char u = static_cast<unsigned char>(c);
  return static_cast<char>(upper ? std::toupper(u) : std::tolower(u));
}

}  // namespace

// ---- DP -----------------------------------------------------------------------------------------

void DpMatrix::compute(const SeqView& query, const SeqView& target, const ScoreModel& model,
                       int col_begin, int col_end) {
  lq_ = to_int(query.length, "query");
  const int lr = to_int(target.length, "target");
  if (col_end < 0) col_end = lr;
  if (col_begin < 1 || col_end > lr || col_begin > col_end + 1) {
    throw Error(ExitCode::internal, "miranda: DP column range out of bounds");
  }
  c0_ = col_begin;
  c1_ = col_end;
  width_ = static_cast<std::size_t>(c1_ - c0_ + 2);
  // Only row 0 and column c0-1 are read before they are written: the rest is not cleared (the
  // matrix is reused from window to window).
  const std::size_t need = static_cast<std::size_t>(lq_ + 1) * width_;
  if (cells_.size() < need) cells_.resize(need);
  std::fill(cells_.begin(), cells_.begin() + static_cast<long>(width_), Cell{});
  for (int i = 1; i <= lq_; ++i) cells_[index(i, c0_ - 1)] = Cell{};
  for (int i = 1; i <= lq_; ++i) {
    // Row i holds the query reversed: q'_i = q[Lq - i]. Its scores by target letter (cell_score).
    const std::uint8_t qa = query.codes[lq_ - i];
    int row_score[5];
    for (std::uint8_t b = 0; b < 5; ++b) row_score[b] = cell_score(model, i, lq_, qa, b);
    const int open = gap_open_cost(model, i, lq_);
    const int ext = gap_extend_cost(model, i, lq_);
    const bool c_allowed = target_gap_allowed(i, lq_);
    Cell* cur = &cells_[index(i, c0_)];
    const Cell* up = &cells_[index(i - 1, c0_)];
    const std::uint8_t* t = target.codes + (c0_ - 1);
    // The left neighbour stays in registers (read back from memory, it would wait on the store).
    Cell left = cur[-1];
    for (int k = 0; k <= c1_ - c0_; ++k) {
      const int s = row_score[t[k] > 4 ? 4 : t[k]];
      left = next_cell(up[k - 1], left, up[k], s, open, ext, c_allowed);
      cur[k] = left;
    }
  }
}

// ---- candidates ---------------------------------------------------------------------------------

std::vector<Candidate> collect_candidates(const DpMatrix& m, int threshold) {
  std::vector<Candidate> out;
  for (int i = 1; i <= m.rows(); ++i) {
    for (int j = m.col_begin(); j <= m.col_end(); ++j) {
      const Best b = m.best(i, j);
      if (is_candidate(b, threshold)) out.push_back(Candidate{b.score, i, j, b.state});
    }
  }
  return out;
}

void sort_candidates(std::vector<Candidate>& c) {
  std::sort(c.begin(), c.end(), [](const Candidate& x, const Candidate& y) {
    if (x.score != y.score) return x.score > y.score;
    if (x.j != y.j) return x.j < y.j;
    return x.i < y.i;
  });
}

std::vector<Candidate> suppress_diagonals(const std::vector<Candidate>& sorted) {
  // A candidate survives when no earlier survivor lies within kDiagonalSuppression diagonals.
  // Survivor diagonals are marked in a table over the range the candidates span.
  std::vector<Candidate> out;
  if (sorted.empty()) return out;
  int lo = sorted.front().diagonal(), hi = lo;
  for (const Candidate& c : sorted) {
    lo = std::min(lo, c.diagonal());
    hi = std::max(hi, c.diagonal());
  }
  const int pad = kDiagonalSuppression;
  std::vector<std::uint8_t> taken(static_cast<std::size_t>(hi - lo + 1 + 2 * pad), 0);
  for (const Candidate& c : sorted) {
    const int d = c.diagonal() - lo + pad;
    bool alive = true;
    for (int k = d - pad; k <= d + pad && alive; ++k) alive = taken[static_cast<std::size_t>(k)] == 0;
    if (!alive) continue;
    taken[static_cast<std::size_t>(d)] = 1;
    out.push_back(c);
  }
  return out;
}

// ---- traceback ----------------------------------------------------------------------------------

Alignment trace_back(const DpMatrix& m, const Candidate& c) {
  Alignment a;
  a.score = m.best(c.i, c.j).score;
  a.qe = c.i;
  a.re = c.j;
  int i = c.i, j = c.j;
  std::uint8_t st = m.best(i, j).state;
  while (i > 0 && j >= m.col_begin() && m.best(i, j).score > 0) {
    const Cell& cell = m.cell(i, j);
    if (st == kA) {
      a.ops.push_back('M');
      st = cell.pa;
      --i;
      --j;
    } else if (st == kB) {
      a.ops.push_back('I');
      st = cell.pb;
      --j;
    } else if (st == kC) {
      a.ops.push_back('D');
      st = cell.pc;
      --i;
    } else {
      break;
    }
  }
  a.qs = i;
  a.rs = j;
  std::reverse(a.ops.begin(), a.ops.end());
  return a;
}

int traceback_window_begin(int query_length, int end_column, const ScoreModel& m) {
  const int span = max_positive_span(query_length, m);
  if (span < 0) return 1;
  const long long begin = static_cast<long long>(end_column) - 2LL * span - 1;
  return begin < 1 ? 1 : static_cast<int>(begin);
}

// ---- hit construction ---------------------------------------------------------------------------

Hit make_hit(const SeqView& query, const SeqView& target, const Alignment& a,
             std::size_t query_index, std::size_t target_index) {
  const int lq = static_cast<int>(query.length);
  const int lr = static_cast<int>(target.length);
  // Row r (1-based) holds query position lq - r (0-based); column c holds target position c - 1.
  auto qletter = [&](int r, bool upper) { return display_letter(query, static_cast<std::size_t>(lq - r), upper); };
  auto tletter = [&](int c, bool upper) { return display_letter(target, static_cast<std::size_t>(c - 1), upper); };

  Hit h;
  h.query_index = query_index;
  h.target_index = target_index;
  h.score = a.score;
  h.alignment = a;

  // 3' flank of the microRNA (rows 1..qs) against columns rs - qs + 1 .. rs.
  int o3 = 0;
  for (int r = 1; r <= a.qs; ++r) {
    const int col = a.rs - (a.qs - r);
    h.query_line.push_back(qletter(r, false));
    h.match_line.push_back(' ');
    if (col >= 1) {
      h.target_line.push_back(tletter(col, false));
      ++o3;
    } else {
      h.target_line.push_back('-');
    }
  }
  // Aligned part.
  int r = a.qs + 1, col = a.rs + 1, bars = 0, colons = 0;
  for (const char op : a.ops) {
    if (op == 'M') {
      const std::uint8_t qc = query.codes[lq - r];
      const std::uint8_t tc = target.codes[col - 1];
      const char sym = match_symbol(qc, tc);
      bars += sym == '|';
      colons += sym == ':';
      h.query_line.push_back(qletter(r, true));
      h.match_line.push_back(sym);
      h.target_line.push_back(tletter(col, true));
      ++r;
      ++col;
    } else if (op == 'I') {
      h.query_line.push_back('-');
      h.match_line.push_back(' ');
      h.target_line.push_back(tletter(col, true));
      ++col;
    } else {
      h.query_line.push_back(qletter(r, true));
      h.match_line.push_back(' ');
      h.target_line.push_back('-');
      ++r;
    }
  }
  // 5' flank of the microRNA (rows qe+1..Lq) against columns re+1 ...
  int o5 = 0;
  for (int k = 1; k <= lq - a.qe; ++k) {
    const int c = a.re + k;
    h.query_line.push_back(qletter(a.qe + k, false));
    h.match_line.push_back(' ');
    if (c <= lr) {
      h.target_line.push_back(tletter(c, false));
      ++o5;
    } else {
      h.target_line.push_back('-');
    }
  }

  h.qstart = lq - a.qe + 1;
  h.qend = lq - a.qs + 1;
  h.rstart = a.rs - o3 + 1;
  h.rend = a.re + o5;
  h.align_len = static_cast<int>(a.ops.size());
  if (h.align_len > 0) {
    h.identity = 100.0 * bars / h.align_len;
    h.similarity = 100.0 * (bars + colons) / h.align_len;
  }
  return h;
}

bool passes_strict(const Hit& h) {
  // Walk the microRNA from its 5' end: the display lines from right to left. A query '-' does not
  // advance the position; a gap fails the test when it lies between two seed positions (after
  // position p with 2 <= p < 8). A gap right after position 8 does not (public_strict.out keeps
  // pq4 x pt2, whose query reads ...A--G... with the G at position 8).
  int pos = 0, aligned = 0, bars = 0, gaps = 0;
  for (std::size_t k = h.query_line.size(); k-- > 0;) {
    const char q = h.query_line[k];
    if (q == '-') {
      if (pos >= kSeedFirstPosition && pos < kSeedLastPosition) ++gaps;
      continue;
    }
    ++pos;
    if (pos < kSeedFirstPosition || pos > kSeedLastPosition) continue;
    if (std::isupper(static_cast<unsigned char>(q)) != 0) ++aligned;
    if (h.match_line[k] == '|') ++bars;
  }
  return aligned >= kStrictMinMatches && bars >= kStrictMinMatches && gaps == 0;
}

// ---- overlap filter, strict, cap ----------------------------------------------------------------

bool overlaps_accepted(const Alignment& a, const std::vector<Alignment>& accepted) {
  for (const Alignment& b : accepted) {
    const int overlap = std::min(a.re, b.re) - std::max(a.rs, b.rs) + 1;
    if (overlap > kMaxTargetOverlap) return true;
  }
  return false;
}

HitCollector::HitCollector(const SeqView& query, const SeqView& target, const Params& params,
                           std::size_t query_index, std::size_t target_index, bool defer_energy)
    : query_(query), target_(target), params_(params), qi_(query_index), ti_(target_index),
      defer_energy_(defer_energy && params.energy) {
  result_.query_index = query_index;
  result_.target_index = target_index;
}

std::string duplex_string(const Hit& h) {
  const std::size_t left = static_cast<std::size_t>(h.alignment.qs), aligned = h.alignment.ops.size();
  auto without_aligned_gaps = [&](const std::string& line) {
    std::string out;
    for (std::size_t k = 0; k < line.size(); ++k)
      if (line[k] != '-' || k < left || k >= left + aligned) out += line[k];
    return out;
  };
  std::string s = without_aligned_gaps(h.query_line) + "XXXXXXX";
  const std::string r = without_aligned_gaps(h.target_line);
  s.append(r.rbegin(), r.rend());
  return s;
}

double printed_energy(int energy) { return static_cast<double>(static_cast<float>(energy / 100.0)); }

bool HitCollector::offer(const Alignment& a) {
  if (result_.truncated) return false;
  if (overlaps_accepted(a, accepted_)) return true;
  accepted_.push_back(a);
  Hit h = make_hit(query_, target_, a, qi_, ti_);
  if (params_.strict && !passes_strict(h)) return true;
  if (defer_energy_) {
    // Filter and cap later (apply_energies): every hit so far is kept, in report order.
    result_.hits.push_back(std::move(h));
    return true;
  }
  if (params_.energy) {
    // Dropped by the energy filter, a hit still counts as accepted for the overlap test (above).
    // The fast CPU path (tested equal to energy::fold_reference), one folder per thread.
    h.energy = energy::thread_duplex_folder().energy(duplex_string(h), energy::model_at(params_.temperature));
    h.has_energy = true;
    if (!(printed_energy(h.energy) < params_.energy_threshold)) return true;
  }
  if (params_.max_hits_per_pair >= 0 &&
      result_.hits.size() >= static_cast<std::size_t>(params_.max_hits_per_pair)) {
    result_.truncated = true;
    return false;
  }
  result_.hits.push_back(std::move(h));
  return true;
}

void apply_energies(PairResult& r, const Params& params, const int* energies) {
  std::size_t kept = 0;
  for (std::size_t k = 0; k < r.hits.size(); ++k) {
    Hit& h = r.hits[k];
    h.energy = energies[k];
    h.has_energy = true;
    if (!(printed_energy(h.energy) < params.energy_threshold)) continue;
    if (params.max_hits_per_pair >= 0 && kept >= static_cast<std::size_t>(params.max_hits_per_pair)) {
      r.truncated = true;
      break;
    }
    if (kept != k) r.hits[kept] = std::move(h);
    ++kept;
  }
  r.hits.resize(kept);
}

// ---- the pair -----------------------------------------------------------------------------------

PairResult align_pair(const SeqView& query, const SeqView& target, const Params& params,
                      std::size_t query_index, std::size_t target_index) {
  const ScoreModel model = make_score_model(params);
  HitCollector collector(query, target, params, query_index, target_index);
  if (query.length == 0 || target.length == 0) return collector.take();
  DpMatrix m;
  m.compute(query, target, model);
  std::vector<Candidate> cands = collect_candidates(m, model.threshold);
  sort_candidates(cands);
  for (const Candidate& c : suppress_diagonals(cands)) {
    if (!collector.offer(trace_back(m, c))) break;
  }
  return collector.take();
}

}  // namespace screen::miranda
