#include "cluster/shell_quote.hpp"

namespace screen::cluster {

std::string shell_quote(const std::string& word) {
  bool plain = !word.empty();
  for (const char c : word) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '/' || c == '.' || c == '_' || c == '-' || c == '+' || c == ':' || c == ',' || c == '=' ||
                    c == '@' || c == '%';
    if (!ok) {
      plain = false;
      break;
    }
  }
  if (plain) return word;
  std::string q = "'";
  for (const char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace screen::cluster
