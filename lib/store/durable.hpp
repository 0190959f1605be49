#pragma once
// Durable file steps shared by the store: the temporary-name, fsync and rename pattern of
// lib/common/output_file.cpp, for files written by other means (HDF5). Errors throw ResourceError
// naming the path and strerror.
#include <cstdio>
#include <string>

namespace screen::store {

// "<path>.tmp.<pid>": where a file is written before it is renamed into place.
std::string temporary_name(const std::string& path);

// The folder holding `path` ("." when it has none).
std::string parent_directory(const std::string& path);

void fsync_file(const std::string& path);
void fsync_directory(const std::string& dir);

// fsync(from), rename(from, to), fsync(parent of to): after it returns, `to` holds from's bytes
// even across a power cut.
void commit_file(const std::string& from, const std::string& to);

// Creates `path` durably: write(temporary) writes and closes the file under its temporary name, then
// commit_file moves it into place. On any error the temporary file is removed and the error rethrown.
template <class Write>
void write_durably(const std::string& path, Write&& write) {
  const std::string temp = temporary_name(path);
  try {
    write(temp);
    commit_file(temp, path);
  } catch (...) {
    std::remove(temp.c_str());
    throw;
  }
}

}  // namespace screen::store
