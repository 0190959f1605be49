#pragma once
// The inputs of a job as the engine uses them: every query set in one SequenceSet (records in
// manifest order of sets, file order within a set; index = row of /queries), the same for targets,
// with the rows of /queries, /targets and /skipped and the list of input files with SHA-256s.
#include <string>
#include <vector>

#include "manifest/job.hpp"
#include "seq/sequence_set.hpp"
#include "store/merge.hpp"
#include "store/tables.hpp"

namespace screen::engine {

struct Inputs {
  seq::SequenceSet queries, targets;
  // The letters of each record as written (miRanda's alignment lines); empty: A C G U N.
  std::vector<std::string> query_letters, target_letters;
  std::vector<store::SequenceRow> query_rows, target_rows;
  std::vector<store::SkippedRow> skipped;
  std::vector<store::InputFile> files;  // query sets, then target sets, manifest order

  std::vector<std::string> input_sha256() const;
  std::vector<std::size_t> query_lengths() const;
  std::vector<std::size_t> target_lengths() const;
};

// Reads every set of the job (min_length / max_length and invalid records skipped and listed).
Inputs load_inputs(const manifest::Job& job);

}  // namespace screen::engine
