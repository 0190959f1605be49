#pragma once
// "Did you mean ...?" for misspelt keys and choices: the closest candidate by edit distance.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace screen::manifest {

// Levenshtein distance with adjacent transpositions counted as one edit (optimal string alignment).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` when it is close enough to be a likely typo (at most a third of
// the longer word's letters edited, and at least 1 allowed; case differences alone always qualify);
// ties go to the earlier candidate.
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace screen::manifest
