#include "engine/inputs.hpp"

#include "stages/miranda/display_letters.hpp"

namespace screen::engine {

namespace {

void load_side(const std::vector<manifest::SetSpec>& specs, const char* side, bool letters_wanted, Inputs& in,
               seq::SequenceSet& all, std::vector<std::string>& letters, std::vector<store::SequenceRow>& rows) {
  bool letters_ok = letters_wanted;
  for (const auto& spec : specs) {
    seq::FastaOptions fo;
    fo.min_length = spec.min_length;
    fo.max_length = spec.max_length;
    fo.skip_bad_records = true;
    seq::SequenceSet set = seq::read_fasta(spec.fasta, fo);
    in.files.push_back({side, spec.name, spec.fasta, set.sha256()});
    auto sk = store::skipped_rows(side, spec.name, set);
    in.skipped.insert(in.skipped.end(), sk.begin(), sk.end());
    auto sr = store::sequence_rows(spec.name, set);
    rows.insert(rows.end(), sr.begin(), sr.end());
    if (letters_ok) {
      std::vector<std::string> l = miranda::read_display_letters(spec.fasta, set);
      if (l.size() == set.size()) {
        letters.insert(letters.end(), l.begin(), l.end());
      } else {
        letters_ok = false;
      }
    }
    if (specs.size() == 1) {
      all = std::move(set);
    } else {
      for (std::size_t i = 0; i < set.size(); ++i) all.add(set.record(i), set.codes(i), set.length(i));
    }
  }
  if (!letters_ok) letters.clear();
}

}  // namespace

Inputs load_inputs(const manifest::Job& job) {
  Inputs in;
  const bool letters = job.enabled(manifest::StageKind::miranda);
  load_side(job.queries, "query", letters, in, in.queries, in.query_letters, in.query_rows);
  load_side(job.targets, "target", letters, in, in.targets, in.target_letters, in.target_rows);
  return in;
}

std::vector<std::string> Inputs::input_sha256() const {
  std::vector<std::string> v;
  for (const auto& f : files) v.push_back(f.sha256);
  return v;
}

std::vector<std::size_t> Inputs::query_lengths() const {
  std::vector<std::size_t> v;
  for (std::size_t i = 0; i < queries.size(); ++i) v.push_back(queries.length(i));
  return v;
}

std::vector<std::size_t> Inputs::target_lengths() const {
  std::vector<std::size_t> v;
  for (std::size_t i = 0; i < targets.size(); ++i) v.push_back(targets.length(i));
  return v;
}

}  // namespace screen::engine
