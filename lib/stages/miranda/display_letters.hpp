#pragma once
// The letters of each FASTA record as written (upper/lower case, T or U, IUPAC letters), which
// miRanda shows in its alignment lines where screen's codes only say A C G U N. Read in a second
// pass over the file (plain or gzip) that read_fasta already accepted.
#include <string>
#include <vector>

#include "seq/sequence_set.hpp"

namespace screen::miranda {

// One string per record of `set` (read from `path` with default options apart from mask_x, so
// that every record of the file is in the set), white space removed. Returns an empty vector when
// the file's records do not line up with the set's (then displays fall back to A C G U N).
std::vector<std::string> read_display_letters(const std::string& path, const seq::SequenceSet& set);

}  // namespace screen::miranda
