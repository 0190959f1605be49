#pragma once
// Progress of a long command: "what: done/total unit (x%), rate, about N s left", logged through
// spdlog at most every `interval_seconds` (and once at the end with finish()).
#include <chrono>
#include <cstddef>
#include <string>

namespace screen {

class Progress {
 public:
  Progress(std::string what, std::string unit, std::size_t total, double interval_seconds = 5.0);
  void update(std::size_t done);  // logs when the interval has passed since the last line
  // Units of different sizes: `work_done` of `work_total` (estimated seconds, say), of which
  // `work_resumed` was done before this command started (resumed from checkpoints, so it took no
  // time here). The ETA then follows the work, elapsed x (total - done) / (done - resumed), not the
  // unit count.
  void set_work_total(double work_total) { work_total_ = work_total; }
  void update(std::size_t done, double work_done, double work_resumed);
  void finish();                  // one closing line: total and elapsed time
  double seconds() const;

 private:
  void log(std::size_t done);
  std::string what_, unit_;
  std::size_t total_;
  double work_total_ = 0, work_done_ = 0, work_resumed_ = 0;
  double interval_;
  std::chrono::steady_clock::time_point start_, last_;
};

// "1h02m", "3m07s", "12s": an ETA or duration for people.
std::string human_duration(double seconds);

}  // namespace screen
