#pragma once
// The accepted range of every stage and run parameter, in one place: the manifest loader and the
// command-line options of the single-shot commands (fold, align, interact) and of run/plan check
// the same rule, so a value the manifest refuses is refused on the command line too, with the same
// words. docs/manifest.md lists the same ranges.
//
// Each rule returns the problem ("must be > 0 and <= 100 (got -1)") or an empty string when the
// value is accepted. The manifest reports it at file:line:column; the CLI throws UsageError.
#include <optional>
#include <string>
#include <string_view>

namespace screen::manifest {

// The first control character (byte < 0x20 or DEL) in `text`, named: "a newline (\n)", "a tab (\t)",
// "control character 0x1b"; nullopt when there is none. A newline would end a line of run.info or
// of a batch script early.
std::optional<std::string> control_character(std::string_view text);

// `text` with control characters written as \n, \r, \t or \xHH, so that a message stays one line.
std::string printable(std::string_view text);

}  // namespace screen::manifest

namespace screen::manifest::rules {

// miRanda (stages.miranda, `screen align`)
std::string miranda_score_threshold(double v);  // a number, > 0 and <= 1,000,000
std::string miranda_scale(double v);            // > 0 and <= 100
std::string miranda_gap_penalty(double v);      // -1000 <= v <= 0 (gap_open and gap_extend)
std::string miranda_max_hits(long long v);      // >= 0 (0 = unlimited)
std::string energy_temperature(double v);       // degrees C, -50 .. 100 (the duplex energy model)
std::string energy_threshold(double v);         // kcal/mol, -1000 .. 1000

// Nussinov (stages.nussinov, `screen fold`)
std::string nussinov_min_loop(long long v);                  // 0 .. 1000
std::string nussinov_max_span(long long v, long long min_loop);  // 0 (unlimited), or > min_loop + 1

// Pair weights (nussinov and bpmax `pairs`, `--weights`)
std::string pair_weight(double v);                        // 0 .. 1000, a multiple of 0.5
std::string pair_weights(double cg, double au, double gu);  // each as above, and not all zero

// BPMax (stages.bpmax, `screen interact`)
std::string bpmax_window(long long v);            // 0 (the whole strand) .. 2^31 - 1
std::string bpmax_report_threshold(double v);     // >= 0

// Run options
std::string cpu_threads(long long v);  // 0 (auto: all cores) .. 4096
std::string shard_count(long long v);  // 1 .. 10,000,000 (`auto` is written as the word, or left out)

// Names and text
std::string name(const std::string& v);        // job and set names: [A-Za-z0-9_.-], 1 .. 100 characters
std::string text_value(const std::string& v);  // any manifest text: no control characters, at most 4096 bytes

// Throws UsageError("OPTION: PROBLEM") when `problem` is not empty: the CLI's side of a rule.
void require_option(const std::string& option, const std::string& problem);

// "'a\nb'" -> "'a\\nb'": a value quoted for a message, control characters escaped (\n, \t, \r,
// \xNN) and long values cut, so that an error message is always one line.
std::string quoted_for_message(const std::string& v, std::size_t max_chars = 40);

}  // namespace screen::manifest::rules
