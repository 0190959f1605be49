#include "seq/input_file.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace screen::seq {

std::string regular_file_problem(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::string("cannot open: ") + std::strerror(errno);
  if (S_ISREG(st.st_mode)) return "";
  const char* kind = S_ISDIR(st.st_mode)    ? "a folder"
                     : S_ISFIFO(st.st_mode) ? "a FIFO (named pipe)"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                     : S_ISCHR(st.st_mode)  ? "a character device"
                     : S_ISBLK(st.st_mode)  ? "a block device"
                                            : "not a plain file";
  return std::string("is ") + kind +
         ", not a regular file: screen reads inputs only from regular files (it may read one twice, and a job "
         "reads them again on resume); write the data to a file first (gzip files are read directly)";
}

}  // namespace screen::seq
