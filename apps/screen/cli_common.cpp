#include "apps/screen/cli.hpp"

#include "common/error.hpp"

namespace screen::cli {

void not_yet(const std::string& what, const std::string& why) {
  throw NotImplementedError(what + " is not implemented in this version of screen yet (" +
                            why + "); see README.md, 'Status of the subcommands'");
}

}  // namespace screen::cli
