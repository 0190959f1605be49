// read_fasta / parse_fasta: a FileSource (plain or gzip, hashed while read) feeding a FastaParser.
#include "common/sha256.hpp"
#include "seq/fasta_parser.hpp"
#include "seq/gzip_source.hpp"
#include "seq/sequence_set.hpp"

namespace screen::seq {

SequenceSet read_fasta(const std::string& path, const FastaOptions& options) {
  detail::FileSource source(path);
  SequenceSet set;
  // Codes take slightly less room than the text of a plain file; gzip grows the buffer as it goes.
  if (!source.gzip() && source.stored_size() > 0) set.reserve(static_cast<std::size_t>(source.stored_size()));
  const std::string name = path == detail::kStandardInput ? "standard input" : path;  // in messages
  detail::FastaParser parser(name, options, set);
  const char* data = nullptr;
  std::size_t size = 0;
  while (source.next(data, size)) parser.feed(data, size);
  parser.finish();
  set.set_source(name, source.sha256_hex());
  return set;
}

SequenceSet parse_fasta(std::string_view text, const std::string& display_name, const FastaOptions& options) {
  SequenceSet set;
  set.reserve(text.size());
  detail::FastaParser parser(display_name, options, set);
  parser.feed(text.data(), text.size());
  parser.finish();
  set.set_source(display_name, sha256_hex(text));
  return set;
}

}  // namespace screen::seq
