#pragma once
// A thread of the lowest scheduling priority (nice 19) that runs what it is given, one call at a
// time, while the caller waits. The CPU worker beside GPU workers computes on it, so that its
// OpenMP threads (started from it, they inherit its priority) use only the cores that the GPU
// workers' host work leaves idle, while its own thread, which writes rows and holds the store's
// mutex, keeps the normal priority.
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace screen::engine {

class LowPriorityThread {
 public:
  LowPriorityThread();
  ~LowPriorityThread();
  LowPriorityThread(const LowPriorityThread&) = delete;
  LowPriorityThread& operator=(const LowPriorityThread&) = delete;

  // Runs f on the thread and returns when it is done; rethrows what f threw.
  void run(const std::function<void()>& f);

 private:
  void loop();
  std::mutex mutex_;
  std::condition_variable cv_;
  std::function<void()> job_;
  bool has_job_ = false, done_ = false, quit_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace screen::engine
