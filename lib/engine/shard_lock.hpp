#pragma once
// Locks for `screen run --shard K`, so that array tasks can run different shards of one output
// folder at once while nothing else runs there:
//   - a shared flock on "<output>/.lock" (the file store::OutputLock locks exclusively for a full
//     run or a merge): shard tasks coexist with each other, never with a full run or merge;
//   - an exclusive flock on "<output>/.lock-shard-<K>": one task per shard;
//   - journal appends under an exclusive flock on "<output>/.lock-journal" (held for one line).
// All flock locks are released by the kernel when the process dies.
#include <cstdint>
#include <string>

namespace screen::engine {

class FileLock {
 public:
  enum class Mode { shared, exclusive };
  // Non-blocking unless `wait`; returns with locked() false when another holder prevents it.
  FileLock(const std::string& path, Mode mode, bool wait);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  bool locked() const { return locked_; }

 private:
  int fd_ = -1;
  bool locked_ = false;
};

// Takes the shared output lock and the shard's lock; throws ConflictError naming what holds them.
class ShardLock {
 public:
  ShardLock(const std::string& output, std::int64_t shard);

 private:
  FileLock output_, shard_;
};

std::string journal_lock_path(const std::string& output);
// The file whose exclusive lock `screen run --shard K` holds while it runs shard K.
std::string shard_lock_path(const std::string& output, std::int64_t shard);

}  // namespace screen::engine
