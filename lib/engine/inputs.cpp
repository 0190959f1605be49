#include "engine/inputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "common/error.hpp"
#include "seq/reverse_complement.hpp"
#include "stages/miranda/display_letters.hpp"

namespace screen::engine {

namespace {

// "target set 'utrs' (utrs.fa): none of its 3 records is left to screen (3 shorter than min_length 30)".
std::string nothing_kept(const char* side, const manifest::SetSpec& spec, const seq::SequenceSet& set) {
  std::map<std::string, std::size_t> reasons;
  for (const auto& s : set.skipped()) ++reasons[s.reason];
  std::string why;
  for (const auto& [reason, n] : reasons) why += fmt::format("{}{} {}", why.empty() ? "" : ", ", n, reason);
  return fmt::format("{} set '{}' ({}): none of its {} records is left to screen ({}); change the set's "
                     "min_length / max_length or its file",
                     side, spec.name, spec.fasta, set.skipped().size(), why);
}

void load_side(const std::vector<manifest::SetSpec>& specs, const char* side, bool letters_wanted, Inputs& in,
               seq::SequenceSet& all, std::vector<std::string>& letters, std::vector<store::SequenceRow>& rows) {
  bool letters_ok = letters_wanted;
  for (const auto& spec : specs) {
    seq::FastaOptions fo;
    fo.min_length = spec.min_length;
    fo.max_length = spec.max_length;
    // Invalid records (bad letters, duplicate names, empty records) are errors with file, line and
    // column, as in the single-shot commands; only the length limits skip records, as documented.
    seq::SequenceSet set = seq::read_fasta(spec.fasta, fo);
    if (set.empty()) throw InputError(nothing_kept(side, spec, set));
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
  const bool pair_stage = job.enabled(manifest::StageKind::miranda) || job.enabled(manifest::StageKind::bpmax);
  if (job.any_both_strands() && pair_stage) {
    for (const auto& row : in.target_rows) {
      const auto spec = std::find_if(job.targets.begin(), job.targets.end(),
                                     [&row](const manifest::SetSpec& s) { return s.name == row.set; });
      in.target_both_strands.push_back(spec != job.targets.end() && spec->strand == manifest::Strand::both ? 1 : 0);
    }
    in.targets_rc = seq::reverse_complements(in.targets);
    for (const auto& l : in.target_letters) in.target_letters_rc.push_back(seq::reverse_complement_letters(l));
  }
  return in;
}

void require_work(const plan::Plan& p) {
  if (!p.units.empty()) return;
  throw InputError(fmt::format(
      "nothing to screen: all {} work units of the plan are skipped{}; raise resources.max_unit_memory or "
      "limit the sets' max_length (`screen plan` lists the skipped units)",
      p.skipped.size(), p.skipped.empty() ? std::string() : " (the first: " + p.skipped.front().reason + ")"));
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
