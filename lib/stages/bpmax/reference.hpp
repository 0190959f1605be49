#pragma once
// The plain BPMax reference: bpmax.md's recurrence as written, over the banded tables of
// bpmax_defs.hpp (the whole table when the windows cover the strands). O(N^3 M^3) time in the
// worst case; meant for checking the fast paths and for tracing sites, not for screening.
//
// Scores are integers in units of 1/weights.scale (format_score prints them).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "stages/bpmax/bpmax_defs.hpp"

namespace screen::bpmax {

// Read access to the tables of any code path (the reference's, a fast path's), so that one
// traceback serves them all. Values and meaning as ReferenceTables's accessors below.
class TableView {
 public:
  virtual ~TableView() = default;
  virtual const Band& band() const = 0;
  virtual const PairTable& pair_table() const = 0;
  virtual const std::vector<std::uint8_t>& query() const = 0;
  virtual const std::vector<std::uint8_t>& reversed_target() const = 0;  // z_t = y_{M-1-t}
  virtual std::int32_t F(int i1, int j1, int i2, int j2) const = 0;
  virtual std::int32_t S1(int i, int j) const = 0;
  virtual std::int32_t S2(int i, int j) const = 0;  // over z
};

// The single-strand table S of codes s with window l (s_index layout, s.size() * l cells):
// S(i, j) = 0 when j - i <= kMinLoop; else max( max_{i <= d < j} S(i, d) + S(d+1, j), w(s_i, s_j) + S(i+1, j-1) ),
// for j - i < l only.
std::vector<std::int32_t> single_strand_table(const std::vector<std::uint8_t>& s, int l, const PairTable& t);

// S1 over the query, S2 over the reversed target z, and F, all restricted to the windows.
class ReferenceTables {
 public:
  // x: query codes (N), y: target codes in their own forward order (M); both may be empty.
  ReferenceTables(const std::uint8_t* x, int n, const std::uint8_t* y, int m, const Params& p);

  const Band& band() const { return band_; }
  const Params& params() const { return params_; }
  const PairTable& pair_table() const { return table_; }
  const std::vector<std::uint8_t>& query() const { return x_; }
  const std::vector<std::uint8_t>& reversed_target() const { return z_; }  // z_t = y_{M-1-t}

  // Require the interval inside the band (j - i < the strand's effective window); not checked.
  std::int32_t F(int i1, int j1, int i2, int j2) const {
    return f_[static_cast<std::size_t>(band_.f_index(i1, j1, i2, j2))];
  }
  std::int32_t S1(int i, int j) const { return s1_[static_cast<std::size_t>(s_index(band_.l1, i, j))]; }
  std::int32_t S2(int i, int j) const { return s2_[static_cast<std::size_t>(s_index(band_.l2, i, j))]; }  // over z

 private:
  std::int32_t& f(int i1, int j1, int i2, int j2) { return f_[static_cast<std::size_t>(band_.f_index(i1, j1, i2, j2))]; }
  std::int32_t f_cell(int i1, int j1, int i2, int j2) const;

  Params params_;
  PairTable table_;
  Band band_;
  std::vector<std::uint8_t> x_, z_;
  std::vector<std::int32_t> s1_, s2_, f_;
};

// A joint structure, every position 1-based in its strand's forward coordinates.
struct Structure {
  std::vector<std::pair<int, int>> inter;         // (query position, target position), by query position
  std::vector<std::pair<int, int>> query_pairs;   // (i, j), i < j, sorted
  std::vector<std::pair<int, int>> target_pairs;  // (i, j), i < j, sorted, forward target positions
  std::string dot_bracket;                        // "query&target", see joint_dot_bracket
};

struct SiteResult {
  long long score = 0;    // site score: max over windows (i1, i2) of F(i1, i1+L1-1, i2, i2+L2-1)
  int query_begin = 1;    // the site's query interval, 1-based inclusive (empty strand: begin = end + 1)
  int query_end = 0;
  int target_begin = 1;   // the site's target interval, forward 1-based inclusive
  int target_end = 0;
  int site_i1 = 0;        // the site in table indices: query start i1 and z start i2
  int site_i2 = 0;
  std::optional<long long> full;           // F(0, N-1, 0, M-1) when both windows cover their strands
  std::optional<long long> query_single;   // S1(0, N-1) when W1 covers the query
  std::optional<long long> target_single;  // S2(0, M-1) when W2 covers the target
  std::optional<Structure> structure;      // the site's traceback, when asked for
};

// Site score and interval, with the first maximum taken in increasing i1, then increasing i2.
// i2 indexes the reversed target z, so "increasing i2" is DEcreasing forward target position:
// among equal windows the one nearest the target's 3' end wins.
SiteResult find_site(const ReferenceTables& t, bool with_traceback);

// Convenience: build the tables and find the site.
SiteResult interact_reference(const std::uint8_t* x, int n, const std::uint8_t* y, int m, const Params& p,
                              bool with_traceback);

// The deterministic traceback of bpmax.md from cell F(i1, j1, i2, j2) (in the band): base case;
// term 1 (increasing k1, then k2); for each k1 term 2 then 3; for each k2 term 4 then 5; term 6;
// term 7. S parts: smallest split d first, then the pair. Weight-0 pairs are not recorded.
Structure traceback(const ReferenceTables& t, int i1, int j1, int i2, int j2);
// The same traceback over any code path's tables.
Structure traceback(const TableView& t, int i1, int j1, int i2, int j2);

// find_site over any code path's tables (same tie-breaking, same optional fields).
SiteResult find_site(const TableView& t, bool with_traceback);

// "query&target": intramolecular pairs ( ), intermolecular [ on the query and ] on the target,
// both strands 5' to 3'.
std::string joint_dot_bracket(int n, int m, const Structure& s);

// Sum of the weights of the structure's pairs (units of 1/scale). Throws Error(internal) unless the
// structure is well formed: positions in range, each base in at most one pair, intramolecular pairs
// non-crossing with j - i > kMinLoop and j - i < the strand's effective window, intermolecular pairs
// non-crossing (query position up => target position down), every pair of positive weight, and
// dot_bracket (when not empty) equal to joint_dot_bracket.
long long score_structure(const std::uint8_t* x, int n, const std::uint8_t* y, int m, const Params& p,
                          const Structure& s);

}  // namespace screen::bpmax
