#pragma once
// AsyncWriter: text blocks written in order on a thread of their own, so that writing overlaps the
// next part's computation; at most two blocks wait (push blocks beyond). The write function may
// throw: the first error is kept, later blocks are dropped, and finish() rethrows it.
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace screen::cli {

class AsyncWriter {
 public:
  explicit AsyncWriter(std::function<void(const std::string&)> write)
      : write_(std::move(write)), thread_([this] { loop(); }) {}
  ~AsyncWriter() { stop(); }
  AsyncWriter(const AsyncWriter&) = delete;
  AsyncWriter& operator=(const AsyncWriter&) = delete;

  void push(std::vector<std::string> block) {
    std::unique_lock<std::mutex> lock(mutex_);
    room_.wait(lock, [this] { return queue_.size() < 2; });
    queue_.push_back(std::move(block));
    ready_.notify_one();
  }
  // Waits until every block is written; rethrows a write's error.
  void finish() {
    stop();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
      ready_.notify_one();
    }
    if (thread_.joinable()) thread_.join();
  }
  void loop() {
    for (;;) {
      std::vector<std::string> block;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [this] { return done_ || !queue_.empty(); });
        if (queue_.empty()) return;
        block = std::move(queue_.front());
        queue_.pop_front();
        room_.notify_one();
      }
      if (error_) continue;
      try {
        for (const std::string& s : block)
          if (!s.empty()) write_(s);
      } catch (...) {
        error_ = std::current_exception();
      }
    }
  }
  std::function<void(const std::string&)> write_;
  std::mutex mutex_;
  std::condition_variable ready_, room_;
  std::deque<std::vector<std::string>> queue_;
  bool done_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace screen::cli
