#include "seq/reverse_complement.hpp"

#include <cctype>

#include "seq/alphabet.hpp"

namespace screen::seq {

SequenceSet reverse_complements(const SequenceSet& set) {
  SequenceSet out;
  out.reserve(set.total_length());
  for (std::size_t i = 0; i < set.size(); ++i) {
    const std::size_t n = set.length(i);
    const std::uint8_t* in = set.codes(i);
    std::uint8_t* codes = out.extend_tail(n);
    for (std::size_t k = 0; k < n; ++k) codes[k] = complement(in[n - 1 - k]);
    out.commit_tail(set.record(i));
  }
  out.set_source(set.source_path(), set.sha256());
  return out;
}

namespace {

char complement_upper(char c, bool dna) {
  switch (c) {
    case 'A': return dna ? 'T' : 'U';
    case 'T':
    case 'U': return 'A';
    case 'C': return 'G';
    case 'G': return 'C';
    case 'R': return 'Y';
    case 'Y': return 'R';
    case 'K': return 'M';
    case 'M': return 'K';
    case 'B': return 'V';
    case 'V': return 'B';
    case 'D': return 'H';
    case 'H': return 'D';
    default: return c;  // S, W, N, X and anything else
  }
}

}  // namespace

std::string reverse_complement_letters(std::string_view letters) {
  bool has_t = false, has_u = false;
  for (const char c : letters) {
    has_t = has_t || c == 'T' || c == 't';
    has_u = has_u || c == 'U' || c == 'u';
  }
  const bool dna = has_t && !has_u;
  std::string out(letters.size(), ' ');
  for (std::size_t k = 0; k < letters.size(); ++k) {
    const char c = letters[letters.size() - 1 - k];
    const bool lower = std::islower(static_cast<unsigned char>(c)) != 0;
    const char u = complement_upper(static_cast<char>(std::toupper(static_cast<unsigned char>(c))), dna);
    out[k] = lower ? static_cast<char>(std::tolower(static_cast<unsigned char>(u))) : u;
  }
  return out;
}

}  // namespace screen::seq
