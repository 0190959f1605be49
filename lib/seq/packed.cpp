#include "seq/packed.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "seq/alphabet.hpp"

namespace screen::seq {

PackedSequence pack(const std::uint8_t* codes, std::size_t n) {
  PackedSequence p;
  p.length = n;
  p.words.assign((n + 31) / 32, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t c = codes[i];
    if (c < N) {
      p.words[i / 32] |= std::uint64_t(c) << (2 * (i % 32));
    } else if (c == N) {
      if (!p.n_runs.empty() && p.n_runs.back().start + p.n_runs.back().length == i)
        ++p.n_runs.back().length;
      else
        p.n_runs.push_back(NRun{i, 1});
    } else {
      throw std::invalid_argument("pack: code " + std::to_string(c) + " at position " + std::to_string(i) +
                                  " is not a nucleotide code (0..4)");
    }
  }
  return p;
}

std::uint8_t PackedSequence::at(std::size_t i) const {
  // The last run starting at or before i decides whether i is N.
  auto it = std::upper_bound(n_runs.begin(), n_runs.end(), i,
                             [](std::size_t pos, const NRun& r) { return pos < r.start; });
  if (it != n_runs.begin() && i < std::prev(it)->start + std::prev(it)->length) return N;
  return static_cast<std::uint8_t>((words[i / 32] >> (2 * (i % 32))) & 3u);
}

void unpack(const PackedSequence& packed, std::uint8_t* out) {
  const std::size_t n = packed.length;
  for (std::size_t w = 0; w < packed.words.size(); ++w) {
    std::uint64_t bits = packed.words[w];
    const std::size_t end = std::min(n, (w + 1) * 32);
    for (std::size_t i = w * 32; i < end; ++i, bits >>= 2) out[i] = static_cast<std::uint8_t>(bits & 3u);
  }
  for (const NRun& r : packed.n_runs) std::fill(out + r.start, out + r.start + r.length, std::uint8_t(N));
}

std::vector<std::uint8_t> unpack(const PackedSequence& packed) {
  std::vector<std::uint8_t> out(packed.length);
  unpack(packed, out.data());
  return out;
}

}  // namespace screen::seq
