#include "seq/sequence_set.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "seq/letter_table.hpp"

namespace screen::seq {

void SequenceSet::add(SequenceRecord record, const std::uint8_t* codes, std::size_t n) {
  record.offset = codes_.size();
  record.length = n;
  codes_.insert(codes_.end(), codes, codes + n);
  committed_ = codes_.size();
  records_.push_back(std::move(record));
}

void SequenceSet::commit_tail(SequenceRecord record) {
  record.offset = committed_;
  record.length = codes_.size() - committed_;
  committed_ = codes_.size();
  records_.push_back(std::move(record));
}

std::string SequenceSet::letters(std::size_t i) const { return decode(codes(i), length(i)); }

std::vector<std::uint8_t> encode(std::string_view letters, bool mask_x) {
  std::vector<std::uint8_t> codes(letters.size());
  for (std::size_t i = 0; i < letters.size(); ++i) {
    const auto byte = static_cast<unsigned char>(letters[i]);
    std::uint8_t c = detail::kLetterTable[byte];
    if (c == detail::kMaskX && mask_x) c = N;
    if (c >= detail::kNotACode) {
      const std::string shown = byte >= 0x21 && byte < 0x7f ? fmt::format("'{}'", static_cast<char>(byte))
                                                            : fmt::format("byte 0x{:02x}", static_cast<unsigned>(byte));
      throw InputError(fmt::format("invalid character {} at position {} of a sequence (expected A C G U T N or an IUPAC code{})",
                                   shown, i + 1, mask_x ? ", or X" : ""));
    }
    codes[i] = c;
  }
  return codes;
}

std::string decode(const std::uint8_t* codes, std::size_t n) {
  std::string s(n, 'N');
  for (std::size_t i = 0; i < n; ++i) s[i] = base_letter(codes[i]);
  return s;
}

}  // namespace screen::seq
