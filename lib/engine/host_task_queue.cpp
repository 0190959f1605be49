#include "engine/host_task_queue.hpp"

#include <algorithm>
#include <chrono>

namespace screen::engine {

HostTaskQueue::HostTaskQueue(std::size_t max_pending)
    : max_pending_(std::max<std::size_t>(max_pending, 1)), thread_([this] { loop(); }) {}

HostTaskQueue::~HostTaskQueue() {
  drain();
  {
    std::lock_guard<std::mutex> hold(mutex_);
    quit_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void HostTaskQueue::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    cv_.wait(lock, [this] { return !tasks_.empty() || quit_; });
    if (tasks_.empty()) return;
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    task();
    lock.lock();
    --pending_;
    cv_.notify_all();
  }
}

double HostTaskQueue::submit(std::function<void()> f) {
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [this] { return pending_ < max_pending_; });
  tasks_.push_back(std::move(f));
  ++pending_;
  cv_.notify_all();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void HostTaskQueue::drain() {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [this] { return pending_ == 0; });
}

}  // namespace screen::engine
