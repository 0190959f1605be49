#include "cluster/sbatch_quote.hpp"

namespace screen::cluster {

namespace {

bool is_plain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' || c == '.' ||
         c == '_' || c == '-' || c == '+' || c == ':' || c == ',' || c == '=' || c == '@' || c == '%';
}

}  // namespace

std::string sbatch_quote(const std::string& value) {
  bool plain = !value.empty();
  for (const char c : value) plain = plain && is_plain(c);
  if (plain) return value;
  std::string q = "\"";
  for (const char c : value) {
    if (c == '\\' || c == '"') q += '\\';
    q += c;
  }
  return q + "\"";
}

std::string slurm_filename_literal(const std::string& path) {
  std::string out;
  for (const char c : path) out += c == '%' ? std::string("%%") : std::string(1, c);
  return out;
}

}  // namespace screen::cluster
