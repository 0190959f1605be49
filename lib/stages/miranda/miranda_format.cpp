// miRanda-style output writers. Numbers go through C's printf formatting (%2.2f, %3.2f, %f) so
// that rounding is the C library's, as in the program whose output we reproduce.
#include "stages/miranda/miranda_format.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

#include "stages/miranda/site_type.hpp"

namespace screen::miranda {

namespace {

// printf into a std::string (the format attribute lets the compiler check every call).
__attribute__((format(printf, 1, 2))) std::string cformat(const char* fmt, ...) {
  char buf[256];
  std::va_list args;
  va_start(args, fmt);
  const int n = std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  if (n < 0) return std::string();
  if (static_cast<std::size_t>(n) < sizeof buf) return std::string(buf, static_cast<std::size_t>(n));
  std::string s(static_cast<std::size_t>(n) + 1, '\0');
  va_start(args, fmt);
  std::vsnprintf(s.data(), s.size(), fmt, args);
  va_end(args);
  s.resize(static_cast<std::size_t>(n));
  return s;
}

}  // namespace

std::string format_hit_line(const Hit& h, std::string_view query_name, std::string_view target_name,
                            double energy) {
  std::string s = ">";
  s.append(query_name);
  s += '\t';
  s.append(target_name);
  s += cformat("\t%2.2f\t%2.2f\t%d %d\t%d %d\t%d\t%3.2f%%\t%3.2f%%\n", static_cast<double>(h.score),
               energy, h.qstart, h.qend, h.rstart, h.rend, h.align_len, h.identity, h.similarity);
  return s;
}

std::string format_pair_line(const std::vector<Hit>& hits, std::string_view query_name,
                             std::string_view target_name, long counter, std::size_t query_length,
                             std::size_t target_length, const std::vector<double>* energies) {
  double total = 0.0, max_score = 0.0;
  for (const Hit& h : hits) {
    total += h.score;
    max_score = std::max(max_score, static_cast<double>(h.score));
  }
  std::string s = ">>";
  s.append(query_name);
  s += '\t';
  s.append(target_name);
  if (energies != nullptr && !energies->empty()) {
    double etotal = 0.0, emin = (*energies)[0];
    for (const double e : *energies) {
      etotal += e;
      emin = std::min(emin, e);
    }
    s += cformat("\t%2.2f\t%2.2f\t%2.2f\t%2.2f", total, etotal, max_score, emin);
  } else {
    s += cformat("\t%2.2f\t0.0\t%2.2f\t0.0", total, max_score);
  }
  s += cformat("\t%ld\t%zu\t%zu\t", counter, query_length, target_length);
  for (const Hit& h : hits) s += cformat(" %d", h.rstart);
  s += '\n';
  return s;
}

std::string format_alignment_block(const Hit& h, const double* energy) {
  std::string s = cformat(
      "\n   Forward:\tScore: %f  Q:%d to %d  R:%d to %d Align Len (%d) (%3.2f%%) (%3.2f%%)\n\n",
      static_cast<double>(h.score), h.qstart, h.qend, h.rstart, h.rend, h.align_len, h.identity,
      h.similarity);
  s += "   Query:    3' " + h.query_line + " 5'\n";
  s += "                " + h.match_line + "\n";
  s += "   Ref:      5' " + h.target_line + " 3'\n";
  if (energy != nullptr) {
    s += cformat("\n   Energy:  %f kCal/Mol\n\n", *energy);
  } else {
    s += "\n\n";
  }
  s += "Scores for this hit:\n";
  return s;
}

std::string format_tsv_header(bool with_energy, bool with_strand) {
  return std::string(with_strand ? "query\ttarget\tstrand\t" : "query\ttarget\t") +
         "score\tqstart\tqend\trstart\trend\tlength\tidentity\tsimilarity\tsite_type\tquery_aln\tmatch\ttarget_aln" +
         (with_energy ? "\tenergy\n" : "\n");
}

std::string format_tsv_row(const Hit& h, std::string_view query_name, std::string_view target_name, char strand) {
  std::string s;
  s.append(query_name);
  s += '\t';
  s.append(target_name);
  if (strand != 0) {
    s += '\t';
    s += strand;
  }
  s += cformat("\t%d\t%d\t%d\t%d\t%d\t%d\t%.2f\t%.2f\t", h.score, h.qstart, h.qend, h.rstart, h.rend,
               h.align_len, h.identity, h.similarity);
  s += site_type_name(site_type(h.query_line, h.target_line));
  s += '\t';
  s += h.query_line + '\t' + h.match_line + '\t' + h.target_line;
  if (h.has_energy) s += cformat("\t%.2f", printed_energy(h.energy));
  s += '\n';
  return s;
}

Hit flip_target_positions(Hit h, std::size_t target_length) {
  const int start = h.rstart, end = h.rend, l1 = static_cast<int>(target_length) + 1;
  h.rstart = l1 - end;
  h.rend = l1 - start;
  return h;
}

void ReportWriter::pair(const std::vector<Hit>& hits, std::string_view query_name,
                        std::string_view target_name, std::size_t query_length,
                        std::size_t target_length) {
  ++counter_;
  if (hits.empty()) return;
  const bool with_energy = hits.front().has_energy;
  std::vector<double> energies;
  for (const Hit& h : hits) {
    const double e = with_energy ? printed_energy(h.energy) : 0.0;
    energies.push_back(e);
    if (blocks_) out_ << format_alignment_block(h, with_energy ? &e : nullptr);
    out_ << format_hit_line(h, query_name, target_name, e);
    if (blocks_) out_ << '\n';
  }
  if (blocks_) out_ << "Seq1,Seq2,Tot Score,Tot Energy,Max Score,Max Energy,Strand,Len1,Len2,Positions\n";
  out_ << format_pair_line(hits, query_name, target_name, counter_, query_length, target_length,
                           with_energy ? &energies : nullptr);
  if (blocks_) out_ << "Complete\n\n";
}

void ReportWriter::finish() {
  if (blocks_) out_ << "Scan Complete\n\n";
}

}  // namespace screen::miranda
