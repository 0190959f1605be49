#include "common/work_profile.hpp"

namespace screen::work_profile {

Counters& this_thread() {
  thread_local Counters counters;
  return counters;
}

}  // namespace screen::work_profile
