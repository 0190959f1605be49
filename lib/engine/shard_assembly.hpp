#pragma once
// One pending shard's part while the workers compute its units in batches, in any order and on
// any device: the part file (store::PartWriter) receives the rows in unit order all the same, so it
// holds exactly the rows of an uninterrupted run on one device.
//
// Opening the part reads the shard's checkpoint chain (folder.hpp names the segments): every segment
// that verifies (same shard, range, manifest, inputs and plan; its place in the chain; its
// checksum) gives its rows to the part, and resumed_to() is the unit after the last one; the first
// segment that does not verify is logged and removed with all later ones, and its units are
// computed again.
//
// deliver() takes a computed batch. Batches that end where the part ends are written at once, with
// those that were waiting for them; a batch further on waits in memory. Checkpoints: when
// `checkpoint_every` seconds have passed since the part was opened or since the last checkpoint (0:
// after every batch written), the rows written since the last checkpoint are saved as the next
// segment of the chain, durably (temporary name, fsync, rename). save_checkpoint() does the same at
// a stop. Rows waiting in memory are in no checkpoint: a crash loses them, and they are computed
// again.
//
// Thread-safe. Every file access holds the context's store mutex.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/shard_context.hpp"
#include "store/part_file.hpp"
#include "store/stage_rows.hpp"

namespace screen::engine {

class ShardAssembly {
 public:
  // Opens the part (a temporary file) and reads the checkpoint chain.
  ShardAssembly(const ShardContext& ctx, const plan::Shard& s);
  ~ShardAssembly();  // an uncommitted part's temporary file is removed
  ShardAssembly(const ShardAssembly&) = delete;
  ShardAssembly& operator=(const ShardAssembly&) = delete;

  const plan::Shard& shard() const { return shard_; }
  std::uint64_t resumed_to() const { return resumed_to_; }
  std::uint64_t resumed_segments() const { return resumed_segments_; }

  // The rows of units [begin, end), computed by `device`; the time spent writing goes to the profile
  // as `writer`'s ("": not counted). A batch delivered a second time (taken again from a slow
  // helper: unit_queue.hpp) is dropped: accepted false.
  struct Delivery {
    bool accepted = false;
    bool complete = false;  // every unit of the shard is now in the part (then commit())
  };
  Delivery deliver(std::uint64_t begin, std::uint64_t end, store::StageRows rows, const std::string& writer,
                   const std::string& device);

  // Commits the complete part (checksum, timing) and returns what the shard reports; `device` is
  // the worker that commits (its write time; "": not counted).
  ShardResult commit(const std::string& device);

  // Saves the rows written since the last checkpoint as a segment (nothing when there are none);
  // the time goes to `writer`'s profile ("": not counted).
  void save_checkpoint(const std::string& writer);

  // Removes the part's temporary file (the shard is left for a later run).
  void abandon();

  bool committed();

 private:
  void write_ready(const std::string& writer);            // lock_ held
  void save_checkpoint_locked(const std::string& writer);  // lock_ held
  void add_device(const std::string& device);             // lock_ held

  const ShardContext& ctx_;
  const plan::Shard& shard_;
  std::mutex lock_;
  std::unique_ptr<store::PartWriter> writer_;
  double opened_ = 0;           // steady clock, seconds
  double last_checkpoint_ = 0;  // steady clock, seconds
  std::uint64_t resumed_to_ = 0, resumed_segments_ = 0;
  std::uint64_t written_ = 0;       // units before this are in the part
  std::uint64_t pending_from_ = 0;  // the first unit after the last checkpoint
  std::uint64_t sequence_ = 0;      // the next segment's number
  store::StageRows pending_;        // rows written since the last checkpoint
  struct Waiting {
    std::uint64_t end = 0;
    store::StageRows rows;
  };
  std::map<std::uint64_t, Waiting> waiting_;  // delivered batches by first unit, not yet written
  std::vector<std::string> devices_;
  ShardResult result_;
  bool committed_ = false;
};

}  // namespace screen::engine
