#pragma once
// OutputLock: one run per output folder. flock(LOCK_EX | LOCK_NB) on "<output>/.lock", held for
// the object's lifetime (the kernel releases it when the process dies, so a crashed run leaves no
// stale lock). The holder writes "pid <pid>\nhost <host>\nsince <UTC time>\n" into the file so a
// second run can say who holds it. flock locks belong to an open file description: two OutputLock
// objects conflict even within one process. On NFS, Linux maps flock to POSIX byte-range locks,
// which work across nodes.
#include <string>

namespace screen::store {

class OutputLock {
 public:
  // Takes the lock; throws ConflictError naming the holder's pid and host when another run holds
  // it, ResourceError when the lock file cannot be created or written.
  explicit OutputLock(const std::string& output_dir);
  ~OutputLock();  // empties the lock file and releases the lock
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

// This machine's host name ("unknown" when it cannot be read).
std::string host_name();

// Now as "YYYY-MM-DDTHH:MM:SSZ".
std::string utc_now();

}  // namespace screen::store
