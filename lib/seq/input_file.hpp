#pragma once
// What screen accepts as an input file: a regular file (or a link to one). A FIFO, socket or
// device is refused before it is opened, because opening a FIFO without a writer blocks forever
// and because screen reads an input more than once (its SHA-256 is checked again on resume, and
// miRanda's display letters are a second pass).
#include <string>

namespace screen::seq {

// "" when `path` is a regular file; else what it is and what to do ("is a FIFO (named pipe), not
// a regular file: ..."). Missing files and folders are described too.
std::string regular_file_problem(const std::string& path);

}  // namespace screen::seq
