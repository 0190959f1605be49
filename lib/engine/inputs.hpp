#pragma once
// The inputs of a job as the engine uses them: every query set in one SequenceSet (records in
// manifest order of sets, file order within a set; index = row of /queries), the same for targets,
// with the rows of /queries, /targets and /skipped and the list of input files with SHA-256s.
#include <cstdint>
#include <string>
#include <vector>

#include "manifest/job.hpp"
#include "plan/plan.hpp"
#include "seq/sequence_set.hpp"
#include "store/merge.hpp"
#include "store/tables.hpp"

namespace screen::engine {

struct Inputs {
  seq::SequenceSet queries, targets;
  // The letters of each record as written (miRanda's alignment lines); empty: A C G U N.
  std::vector<std::string> query_letters, target_letters;
  std::vector<store::SequenceRow> query_rows, target_rows;
  // Per target row: 1 where its set has `strand: both`. With any such set, the reverse complement
  // of every target (same rows) and of its letters as written; otherwise these are empty.
  std::vector<std::uint8_t> target_both_strands;
  seq::SequenceSet targets_rc;
  std::vector<std::string> target_letters_rc;
  std::vector<store::SkippedRow> skipped;
  std::vector<store::InputFile> files;  // query sets, then target sets, manifest order

  std::vector<std::string> input_sha256() const;
  std::vector<std::size_t> query_lengths() const;
  std::vector<std::size_t> target_lengths() const;
};

// Reads every set of the job with the FASTA rules (an invalid record is an InputError naming file,
// line and column); records outside min_length / max_length are skipped and listed, and a set left
// with no record is an InputError.
Inputs load_inputs(const manifest::Job& job);

// A plan with no work unit left (every unit over resources.max_unit_memory) is an error for run,
// plan and validate: throws InputError saying how many units were skipped and why.
void require_work(const plan::Plan& p);

}  // namespace screen::engine
