#pragma once
// Reverse complements: the strand opposite a record, read 5' to 3' (targets[].strand: both).
#include <string>
#include <string_view>

#include "seq/sequence_set.hpp"

namespace screen::seq {

// The same records (names, positions in the file) with their codes reverse-complemented (A<->U,
// C<->G, N stays N), and the same source; skipped records are not carried.
SequenceSet reverse_complements(const SequenceSet& set);

// The reverse complement of letters as written, keeping each letter's case: A pairs with T when the
// text holds a T and no U (DNA), else with U; C<->G; the IUPAC ambiguity codes go to their
// complements (R<->Y, K<->M, B<->V, D<->H; S, W, N and X stay); anything else stays as it is.
std::string reverse_complement_letters(std::string_view letters);

}  // namespace screen::seq
