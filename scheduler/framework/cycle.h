// One scheduling cycle: open a session on a snapshot, run the configured
// actions in order, close it, and return what was decided.
#ifndef SHOAL_SCHEDULER_FRAMEWORK_CYCLE_H_
#define SHOAL_SCHEDULER_FRAMEWORK_CYCLE_H_

#include <vector>

#include "scheduler/api/cluster_info.h"
#include "scheduler/framework/policy.h"
#include "scheduler/framework/session.h"

namespace shoal::framework {

struct CycleOutcome {
  // The snapshot as the session left it: task statuses, job phases and
  // messages.
  api::ClusterInfo cluster;
  std::vector<BindDecision> binds;
  std::vector<EvictDecision> evictions;
};

CycleOutcome RunCycle(api::ClusterInfo snapshot, Policy& policy);

}  // namespace shoal::framework

#endif  // SHOAL_SCHEDULER_FRAMEWORK_CYCLE_H_
