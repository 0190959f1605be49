#include "common/progress.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cmath>

namespace screen {

Progress::Progress(std::string what, std::string unit, std::size_t total, double interval_seconds)
    : what_(std::move(what)),
      unit_(std::move(unit)),
      total_(total),
      interval_(interval_seconds),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

double Progress::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::update(std::size_t done) {
  const auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - last_).count() < interval_) return;
  last_ = now;
  log(done);
}

void Progress::update(std::size_t done, double work_done, double work_resumed) {
  work_done_ = work_done;
  work_resumed_ = work_resumed;
  update(done);
}

void Progress::log(std::size_t done) {
  const double s = seconds();
  const double rate = s > 0 ? static_cast<double>(done) / s : 0.0;
  const double pct = total_ > 0 ? 100.0 * static_cast<double>(done) / static_cast<double>(total_) : 100.0;
  std::string eta = "?";
  if (done >= total_)
    eta = "0s";
  else if (work_total_ > 0 && work_done_ > work_resumed_)
    eta = human_duration(s * (work_total_ - work_done_) / (work_done_ - work_resumed_));
  else if (rate > 0)
    eta = human_duration(static_cast<double>(total_ - done) / rate);
  spdlog::info("{}: {}/{} {} ({:.1f}%), {:.1f} {}/s, about {} left", what_, done, total_, unit_, pct, rate, unit_, eta);
}

void Progress::finish() { spdlog::info("{}: {} {} in {}", what_, total_, unit_, human_duration(seconds())); }

std::string human_duration(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return "?";
  if (seconds < 10) return fmt::format("{:.1f}s", seconds);
  const long s = std::lround(seconds);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

}  // namespace screen
