#pragma once
// Whether some process holds a flock on a file, found without taking the lock (taking it, even for
// an instant, could make a starting `screen run --shard K` fail): the file's device and inode
// looked up in /proc/locks. Sees holders on this machine only.
#include <string>

namespace screen::cluster {

enum class LockProbe { held, free, unknown };  // unknown: /proc/locks cannot be read

LockProbe probe_lock(const std::string& path);

}  // namespace screen::cluster
