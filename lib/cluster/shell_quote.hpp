#pragma once
// Quoting for the generated batch scripts (bash): a word that needs no quotes is kept as it is,
// anything else is put in single quotes ('it'\''s').
#include <string>

namespace screen::cluster {

std::string shell_quote(const std::string& word);

}  // namespace screen::cluster
