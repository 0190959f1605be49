#pragma once
// miRanda-style alignment, reference implementation: docs/algorithms.md (miRanda) in plain code.
//
// The work of one (query, target) pair is split in two so that a fast path can reuse the exact
// post-processing on a bounded window:
//   1. scan cells -> candidates: DpMatrix::compute over the target's columns, collect_candidates
//      (row-major), sort_candidates, suppress_diagonals;
//   2. candidate -> hit: trace_back on a DpMatrix covering the candidate's alignment (the whole
//      target here; a window before the end column for a fast path), then HitCollector (overlap
//      filter, strict mode, per-pair cap) and make_hit (flanks, positions, display lines).
// align_pair does both on the whole target and is the definition every other path is tested against.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "stages/miranda/miranda_defs.hpp"

namespace screen::miranda {

// One sequence as the aligner sees it: alphabet.hpp codes (T = U; N, IUPAC and X are code 4), and
// optionally the letters as read, used only for display (miRanda prints T or U as the input had it,
// and the IUPAC letter itself). Without letters the display uses A C G U N.
struct SeqView {
  const std::uint8_t* codes = nullptr;
  std::size_t length = 0;
  const char* letters = nullptr;  // nullptr, or `length` letters (any case)
};

// A cell that may end a hit: best(i, j) >= threshold in state A or C. i is the row (query end qe),
// j the 1-based target column (target end re).
struct Candidate {
  int score = 0;
  int i = 0;
  int j = 0;
  std::uint8_t state = kNone;
  int diagonal() const { return j - i; }
};

// A traced alignment: rows qs+1..qe against columns rs+1..re (1-based; qs/rs are where the walk
// stopped). ops, in increasing row/column order: 'M' (state A: query base against target base),
// 'I' (state B: gap in the query), 'D' (state C: gap in the target).
struct Alignment {
  int score = 0;
  int qs = 0, qe = 0;
  int rs = 0, re = 0;
  std::string ops;
};

// One reported hit, fields as miRanda prints them.
struct Hit {
  std::size_t query_index = 0;
  std::size_t target_index = 0;
  int score = 0;
  int qstart = 0, qend = 0;   // 1-based, as printed (query positions from the 5' end)
  int rstart = 0, rend = 0;   // 1-based, as printed (flanks included)
  int align_len = 0;          // aligned columns, gaps included
  double identity = 0.0;      // percent '|'
  double similarity = 0.0;    // percent '|' or ':'
  std::string query_line;     // query 3'->5', flanks lower case, aligned part upper case
  std::string match_line;     // '|', ':' or ' ' per column
  std::string target_line;    // target 5'->3'
  Alignment alignment;        // the traced alignment (internal coordinates)
  bool has_energy = false;    // Params::energy: the duplex energy was computed
  int energy = 0;             // 0.01 kcal/mol (docs/energy.md)
};

// The hit's duplex string (docs/energy.md): the query line without the gaps of its aligned part,
// seven X, then the target line reversed without the gaps of its aligned part.
std::string duplex_string(const Hit& h);

// The energy as miRanda holds and prints it: a float of kcal/mol.
double printed_energy(int energy);

struct PairResult {
  std::vector<Hit> hits;      // report order
  bool truncated = false;     // more than Params::max_hits_per_pair hits: the rest were dropped
  std::size_t query_index = 0;   // the pair (as given to align_pair / HitCollector)
  std::size_t target_index = 0;
};

// The three-state DP over rows 0..Lq and target columns col_begin-1..col_end (1-based, inclusive),
// with column col_begin-1 and row 0 all zero (for col_begin = 1 that is the whole-target definition).
class DpMatrix {
 public:
  void compute(const SeqView& query, const SeqView& target, const ScoreModel& model,
               int col_begin = 1, int col_end = -1);  // col_end -1: the target's length

  int rows() const { return lq_; }
  int col_begin() const { return c0_; }
  int col_end() const { return c1_; }
  bool covers(int j) const { return j >= c0_ - 1 && j <= c1_; }
  const Cell& cell(int i, int j) const { return cells_[index(i, j)]; }
  Best best(int i, int j) const {
    const Cell& c = cell(i, j);
    return best_of(c.a, c.b, c.c);
  }

 private:
  std::size_t index(int i, int j) const {
    return static_cast<std::size_t>(i) * width_ + static_cast<std::size_t>(j - (c0_ - 1));
  }
  int lq_ = 0, c0_ = 1, c1_ = 0;
  std::size_t width_ = 0;
  std::vector<Cell> cells_;
};

// Step 1 of "Candidate hits": every candidate cell of m, row-major (i outer, j inner).
std::vector<Candidate> collect_candidates(const DpMatrix& m, int threshold);
// Step 2: score descending, then j ascending, then i ascending.
void sort_candidates(std::vector<Candidate>& c);
// Step 3: of a sorted list, the candidates that survive diagonal suppression, in order.
std::vector<Candidate> suppress_diagonals(const std::vector<Candidate>& sorted);

// Step 4: the traceback from a candidate's end cell. m must cover the alignment's columns.
Alignment trace_back(const DpMatrix& m, const Candidate& c);

// First target column of a DP window [begin, end_column] on which trace_back from a candidate ending
// at end_column gives the same alignment as on the whole target (1 when no bound applies): every
// cell the traceback visits or compares lies within max_positive_span of the end, and the positive
// values there depend only on paths starting at most max_positive_span columns further left.
int traceback_window_begin(int query_length, int end_column, const ScoreModel& m);

// Steps 6-7: flanks, reported positions, length, identity, similarity and display lines.
Hit make_hit(const SeqView& query, const SeqView& target, const Alignment& a,
             std::size_t query_index = 0, std::size_t target_index = 0);

// Step 8: the strict-mode seed test on a hit's display lines.
bool passes_strict(const Hit& h);

// Step 5 and the per-pair cap: offered alignments in report order; keeps the hits to report.
class HitCollector {
 public:
  // defer_energy (with params.energy): hits are kept without their energies, and neither the energy
  // filter nor the per-pair cap is applied; apply_energies() does both later, with energies
  // computed elsewhere (the GPU path folds a whole batch's duplexes at once).
  HitCollector(const SeqView& query, const SeqView& target, const Params& params,
               std::size_t query_index, std::size_t target_index, bool defer_energy = false);
  // Returns false once the pair's hit cap is exceeded (nothing more can be reported).
  bool offer(const Alignment& a);
  PairResult take() { return std::move(result_); }

 private:
  SeqView query_, target_;
  Params params_;
  std::size_t qi_, ti_;
  bool defer_energy_ = false;
  std::vector<Alignment> accepted_;  // passed the overlap test (kept for comparisons)
  PairResult result_;
};

// A pair collected with deferred energies, finished: hits[k] gets energies[k] (0.01 kcal/mol), then
// the energy filter and the per-pair cap apply in report order, exactly as HitCollector::offer
// applies them when it computes the energies itself.
void apply_energies(PairResult& r, const Params& params, const int* energies);

// Whether an alignment's target interval [rs, re] overlaps an accepted one's by more than
// kMaxTargetOverlap positions.
bool overlaps_accepted(const Alignment& a, const std::vector<Alignment>& accepted);

// The whole definition for one pair: hits in report order.
PairResult align_pair(const SeqView& query, const SeqView& target, const Params& params,
                      std::size_t query_index = 0, std::size_t target_index = 0);

}  // namespace screen::miranda
