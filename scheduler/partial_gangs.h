// The rule for gangs left half-bound. Binds go out together, but some can
// fail (the API server errs, a node goes away, the scheduler restarts
// mid-way). Shoal then tries to complete the gang in later cycles. If a
// gang stays below its minMember with members bound for more than
// `limit` consecutive cycles, its bound members are released (evicted,
// reason "gang-incomplete"), so they stop holding room the rest of the
// gang cannot get; their controller recreates them and the gang is
// placed whole later.
#ifndef SHOAL_SCHEDULER_PARTIAL_GANGS_H_
#define SHOAL_SCHEDULER_PARTIAL_GANGS_H_

#include <map>
#include <string>
#include <vector>

#include "scheduler/api/cluster_info.h"

namespace shoal {

class PartialGangs {
 public:
  explicit PartialGangs(int limit) : limit_(limit) {}

  // Called once per cycle with the session's final picture; returns the
  // tasks to release now.
  std::vector<api::TaskIndex> Review(const api::ClusterInfo& cluster);

 private:
  const int limit_;
  std::map<std::string, int> cycles_below_minimum_;  // by job uid
};

}  // namespace shoal

#endif  // SHOAL_SCHEDULER_PARTIAL_GANGS_H_
