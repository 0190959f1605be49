#include "manifest/sbatch_values.hpp"

#include "manifest/param_rules.hpp"

#include <fmt/format.h>

namespace screen::manifest {

namespace {

bool is_lower_or_digit(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool is_partition_char(char c) {
  return is_letter(c) || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

std::string lower(std::string_view text) {
  std::string s(text);
  for (auto& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

const char* const kOptionForms =
    "write one sbatch option per entry: --name, --name=value (name: lower-case letters, digits and '-') or -X, "
    "-X value, -Xvalue (X a letter)";

std::optional<SbatchOption> parse_long(std::string_view text, std::string& problem) {
  SbatchOption o;
  const std::string_view body = text.substr(2);
  const std::size_t eq = body.find('=');
  o.name = std::string(body.substr(0, eq));
  if (o.name.empty() || !is_letter(o.name[0])) {
    problem = fmt::format("'{}' is not an sbatch option: {}", printable(text), kOptionForms);
    return std::nullopt;
  }
  for (const char c : o.name) {
    if (!is_lower_or_digit(c) && c != '-') {
      problem = fmt::format("'{}' is not one sbatch option: the option name '{}' may use only lower-case letters, "
                            "digits and '-' (a value goes after '=': --name=value); {}",
                            printable(text), printable(o.name), kOptionForms);
      return std::nullopt;
    }
  }
  if (eq != std::string_view::npos) {
    o.has_value = true;
    o.value = std::string(body.substr(eq + 1));
  }
  return o;
}

std::optional<SbatchOption> parse_short(std::string_view text, std::string& problem) {
  SbatchOption o;
  o.is_long = false;
  if (text.size() < 2 || !is_letter(text[1])) {
    problem = fmt::format("'{}' is not an sbatch option: {}", printable(text), kOptionForms);
    return std::nullopt;
  }
  o.name = std::string(1, text[1]);
  if (text.size() == 2) return o;
  o.has_value = true;
  o.attached = text[2] != ' ';
  o.value = std::string(text.substr(o.attached ? 2 : 3));
  if (o.value.empty()) {
    problem = fmt::format("'{}': no value after -{}; {}", printable(text), o.name, kOptionForms);
    return std::nullopt;
  }
  return o;
}

}  // namespace


std::string hetjob_word_problem(std::string_view text) {
  const std::string l = lower(text);
  for (const char* word : {"hetjob", "packjob"})
    if (l.find(word) != std::string::npos)
      return fmt::format("'{}' holds '{}', which sbatch takes anywhere on an #SBATCH line for the separator of a "
                         "heterogeneous job",
                         printable(text), word);
  return "";
}

std::string partition_problem(std::string_view partition) {
  const std::string accepted = "a SLURM partition name uses only letters, digits, '_', '-' and '.' (several "
                               "partitions: separated by ',')";
  if (partition.empty()) return "expected a partition name; " + accepted;
  if (auto c = control_character(partition))
    return fmt::format("'{}' contains {}; {}", printable(partition), *c, accepted);
  if (partition.size() > kMaxPartitionLength)
    return fmt::format("is {} characters long; at most {} are accepted", partition.size(), kMaxPartitionLength);
  for (const char c : partition)
    if (!is_partition_char(c) && c != ',')
      return fmt::format("'{}' contains '{}'; {}", partition, c, accepted);
  if (partition.front() == ',' || partition.back() == ',' || partition.find(",,") != std::string_view::npos)
    return fmt::format("'{}' has an empty partition name between commas; {}", partition, accepted);
  return hetjob_word_problem(partition);
}

std::optional<SbatchOption> parse_sbatch_option(std::string_view text, std::string& problem) {
  if (auto c = control_character(text)) {
    problem = fmt::format("'{}' contains {}; {}, without control characters", printable(text), *c, kOptionForms);
    return std::nullopt;
  }
  if (problem = hetjob_word_problem(text); !problem.empty()) return std::nullopt;
  if (text.substr(0, 2) == "--") return parse_long(text, problem);
  if (text.substr(0, 1) == "-") return parse_short(text, problem);
  problem = fmt::format("'{}' is not an sbatch option (options start with '-', e.g. --account=rna)", printable(text));
  return std::nullopt;
}

}  // namespace screen::manifest
