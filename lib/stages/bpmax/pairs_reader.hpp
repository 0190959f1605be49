#pragma once
// The original BPMax program's input: a FASTA-like file with one record per pair, whose sequence
// is `QUERY&TARGET` (sequence lines concatenated; exactly one '&'; both sides non-empty). Letters
// follow the FASTA rules (sequences.md: case-insensitive, T read as U, N and IUPAC codes kept as N);
// a '\r' before a line end is accepted; anything else is an InputError naming file:line:column.
// Plain or gzip (by content).
#include <string>
#include <string_view>

#include "seq/sequence_set.hpp"

namespace screen::bpmax {

// queries.record(k) and targets.record(k) are pair k's two strands; both carry the record's name.
struct PairSets {
  seq::SequenceSet queries;
  seq::SequenceSet targets;
  std::size_t size() const { return queries.size(); }
};

PairSets read_pairs(const std::string& path);

// The same rules on text in memory; `display_name` stands for the file in messages.
PairSets parse_pairs(std::string_view text, const std::string& display_name);

}  // namespace screen::bpmax
