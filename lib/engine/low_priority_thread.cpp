#include "engine/low_priority_thread.hpp"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <spdlog/spdlog.h>

namespace screen::engine {

LowPriorityThread::LowPriorityThread() : thread_([this] { loop(); }) {}

LowPriorityThread::~LowPriorityThread() {
  {
    std::lock_guard<std::mutex> hold(mutex_);
    quit_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void LowPriorityThread::loop() {
  // Linux: PRIO_PROCESS with a thread id sets that thread's nice value only.
  if (setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 19) != 0)
    spdlog::debug("the CPU worker's threads keep the normal priority: setpriority: {}", std::strerror(errno));
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    cv_.wait(lock, [this] { return has_job_ || quit_; });
    if (!has_job_) return;
    std::function<void()> job = std::move(job_);
    has_job_ = false;
    lock.unlock();
    std::exception_ptr error;
    try {
      job();
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    error_ = error;
    done_ = true;
    cv_.notify_all();
  }
}

void LowPriorityThread::run(const std::function<void()>& f) {
  std::unique_lock<std::mutex> lock(mutex_);
  job_ = f;
  has_job_ = true;
  done_ = false;
  cv_.notify_all();
  cv_.wait(lock, [this] { return done_; });
  if (error_) {
    std::exception_ptr e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

}  // namespace screen::engine
