#pragma once
// Writers for miRanda-style output (docs/algorithms.md (miRanda), Output): the '>' hit lines and '>>'
// pair lines exactly as miRanda 3.3a prints them with -quiet (with or without -noenergy), the human-readable alignment
// block it prints before each hit line, and a TSV row. Every function returns the text with its
// trailing newline.
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "stages/miranda/reference.hpp"

namespace screen::miranda {

// ">query\ttarget\tscore\tenergy\tqstart qend\trstart rend\tlength\tidentity%\tsimilarity%\n"
std::string format_hit_line(const Hit& h, std::string_view query_name, std::string_view target_name,
                            double energy = 0.0);

// ">>query\ttarget\ttotal\t0.0\tmax\t0.0\tcounter\tLq\tLr\t pos1 pos2...\n". `counter` is the
// running number of (query, target) pairs examined in the run, from 1. With `energies` (one per hit)
// the two 0.0 fields become the energy total and the lowest energy, as %2.2f.
std::string format_pair_line(const std::vector<Hit>& hits, std::string_view query_name,
                             std::string_view target_name, long counter, std::size_t query_length,
                             std::size_t target_length, const std::vector<double>* energies = nullptr);

// The block miRanda prints before a hit line ("\n   Forward:\tScore: ..." through
// "Scores for this hit:\n"). With `energy`, the "   Energy: ..." line is included.
std::string format_alignment_block(const Hit& h, const double* energy = nullptr);

// TSV: query target score qstart qend rstart rend length identity similarity site_type query_aln
// match target_aln and, with energies, energy (kcal/mol, two decimals) last. site_type: TargetScan's
// (site_type.hpp). With a strand ('+' or '-'; 0: none, the forward-only layout) a strand column
// follows target.
std::string format_tsv_header(bool with_energy = false, bool with_strand = false);
std::string format_tsv_row(const Hit& h, std::string_view query_name, std::string_view target_name, char strand = 0);

// A hit on the reverse complement of a target of `target_length` nt with its target interval in the
// target's forward coordinates (p -> target_length + 1 - p), or back again: the alignment lines stay
// as scanned.
Hit flip_target_positions(Hit h, std::size_t target_length);

// The body of a miRanda report (what follows its banner and settings), pair by pair: every pair
// examined must be passed to pair(), in the order examined, so that the counter runs as miRanda's.
// With blocks = false only the '>' and '>>' lines are written.
class ReportWriter {
 public:
  explicit ReportWriter(std::ostream& out, bool blocks = true) : out_(out), blocks_(blocks) {}
  void pair(const std::vector<Hit>& hits, std::string_view query_name, std::string_view target_name,
            std::size_t query_length, std::size_t target_length);
  void finish();  // "Scan Complete" trailer (blocks only)
  long pairs_examined() const { return counter_; }

 private:
  std::ostream& out_;
  bool blocks_;
  long counter_ = 0;
};

}  // namespace screen::miranda
