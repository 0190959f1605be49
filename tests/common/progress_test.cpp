// Progress lines: the ETA follows the work of the units when their sizes are known, so cheap units
// done first do not make a long run look almost finished; resumed work takes no time here.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>
#include <sstream>
#include <thread>

#include "common/progress.hpp"

namespace screen {
namespace {

// The log lines written while `body` runs.
template <class Body>
std::string captured(Body body) {
  std::ostringstream text;
  auto previous = spdlog::default_logger();
  auto logger = std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(text));
  logger->set_pattern("%v");
  spdlog::set_default_logger(logger);
  body();
  spdlog::set_default_logger(previous);
  return text.str();
}

// The seconds of "about N left" in a progress line (human_duration below 10 s: "1.8s").
double seconds_left(const std::string& line) {
  const auto at = line.find("about ");
  if (at == std::string::npos) return -1;
  return std::stod(line.substr(at + 6));
}

TEST(Progress, TheEtaFollowsTheWorkNotTheUnitCount) {
  const std::string line = captured([] {
    Progress p("run", "units", 100, 0.0);
    p.set_work_total(100.0);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    // 90 of 100 units done, but they were 10% of the work: about 9 times the elapsed time is left.
    p.update(90, 10.0, 0.0);
  });
  EXPECT_NE(line.find("run: 90/100 units (90.0%)"), std::string::npos) << line;
  const double left = seconds_left(line);
  EXPECT_GT(left, 1.5) << line;  // 9 x 0.2 s; by the unit count it would say about 0.02 s
  EXPECT_LT(left, 5.0) << line;
}

TEST(Progress, ResumedWorkDoesNotCountAsSpeed) {
  const std::string line = captured([] {
    Progress p("run", "units", 100, 0.0);
    p.set_work_total(100.0);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    // 50 of the work came from checkpoints; 10 more were computed in 0.2 s: 40 left take about 0.8 s.
    p.update(60, 60.0, 50.0);
  });
  const double left = seconds_left(line);
  EXPECT_GT(left, 0.6) << line;
  EXPECT_LT(left, 3.0) << line;
}

}  // namespace
}  // namespace screen
