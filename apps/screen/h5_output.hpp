#pragma once
// `--format h5` of the single-shot commands (fold, align, interact): the same results file as
// `screen run` writes (docs/results.md), made by running a one-stage job through the engine in a
// temporary folder beside the output and moving its results.h5 into place.
#include <string>
#include <vector>

#include "common/pair_weights.hpp"

namespace screen::cli {

struct SingleStageJob {
  std::string command;        // "fold", "align", "interact": the job's name and the messages'
  std::string stage_yaml;     // the stage's section, e.g. "  miranda:\n    score_threshold: 140\n"
  std::string queries;        // FASTA paths (not "-": the engine reads files)
  std::string targets;        // "" when the stage has none (fold)
  bool both_strands = false;  // targets[].strand: both (--strand both)
  std::string device = "auto";  // auto, cpu, gpu
  int threads = 0;
  std::string out;            // the .h5 file to write
  std::string command_line;   // recorded in the file
};

// Pair weights as a manifest's `pairs:` mapping, every pair written out.
std::string pairs_yaml(const PairWeights& w);

// Runs the job; throws UsageError for standard input or a missing --out, and what the engine throws.
void write_single_stage_h5(const SingleStageJob& job);

}  // namespace screen::cli
