#pragma once
// The host tasks of one worker's batches (Device::start: e.g. BPMax tracebacks, which use every
// core), run one at a time in the order given, on a thread of their own, while the worker drives
// its device through the next batches. At most `max_pending` tasks wait or run: a worker whose
// host work falls that far behind waits in submit(), so rows never pile up without bound. Two
// pending tasks absorb the batches whose tasks take longer than the next batch's device time.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace screen::engine {

class HostTaskQueue {
 public:
  explicit HostTaskQueue(std::size_t max_pending);
  ~HostTaskQueue();  // runs what is queued, then joins
  HostTaskQueue(const HostTaskQueue&) = delete;
  HostTaskQueue& operator=(const HostTaskQueue&) = delete;

  // Queues f (which must not throw); returns the seconds it waited for room.
  double submit(std::function<void()> f);
  // Returns when every task given so far has run.
  void drain();

 private:
  void loop();
  std::size_t max_pending_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  std::size_t pending_ = 0;  // queued or running
  bool quit_ = false;
  std::thread thread_;
};

}  // namespace screen::engine
