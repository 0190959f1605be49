#include "cluster/lock_probe.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace screen::cluster {

LockProbe probe_lock(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return LockProbe::free;  // never locked: the holder creates it
  std::ifstream in("/proc/locks");
  if (!in) return LockProbe::unknown;
  // "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"; waiters have "->" after the number.
  const std::string wanted = fmt::format("{:02x}:{:02x}:{}", major(st.st_dev), minor(st.st_dev),
                                         static_cast<unsigned long long>(st.st_ino));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string number, kind, mode, access, pid, id;
    if (!(f >> number >> kind) || kind == "->") continue;
    if (kind != "FLOCK" || !(f >> mode >> access >> pid >> id)) continue;
    if (id == wanted) return LockProbe::held;
  }
  return LockProbe::free;
}

}  // namespace screen::cluster
