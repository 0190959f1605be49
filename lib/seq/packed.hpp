#pragma once
// PackedSequence: codes (alphabet.hpp) at 2 bits per base, 32 bases per 64-bit word (base i in bits
// 2*(i%32) and up of words[i/32]), with the N positions kept beside them as sorted runs. An N is
// stored as 0 (A) in the words; the runs say which positions are N.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace screen::seq {

struct NRun {
  std::uint64_t start = 0;
  std::uint64_t length = 0;
  bool operator==(const NRun& o) const { return start == o.start && length == o.length; }
};

struct PackedSequence {
  std::vector<std::uint64_t> words;  // (length + 31) / 32 words; unused high bits of the last are 0
  std::vector<NRun> n_runs;          // sorted by start, non-overlapping, never adjacent
  std::uint64_t length = 0;

  std::uint8_t at(std::size_t i) const;  // the code at position i, N included
  bool operator==(const PackedSequence& o) const {
    return length == o.length && words == o.words && n_runs == o.n_runs;
  }
};

// Throws std::invalid_argument for a code above N.
PackedSequence pack(const std::uint8_t* codes, std::size_t n);
inline PackedSequence pack(const std::vector<std::uint8_t>& codes) { return pack(codes.data(), codes.size()); }

// Writes the packed.length codes to out.
void unpack(const PackedSequence& packed, std::uint8_t* out);
std::vector<std::uint8_t> unpack(const PackedSequence& packed);

}  // namespace screen::seq
