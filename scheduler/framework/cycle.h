// One scheduling cycle: open a session on a snapshot, run the configured
// actions in order, close it, and return what was decided.
#ifndef SHOAL_SCHEDULER_FRAMEWORK_CYCLE_H_
#define SHOAL_SCHEDULER_FRAMEWORK_CYCLE_H_

#include <vector>

#include "scheduler/api/cluster_info.h"
#include "scheduler/dra/stale_allocations.h"
#include "scheduler/framework/policy.h"
#include "scheduler/framework/session.h"

namespace shoal::framework {

struct CycleOutcome {
  // The snapshot as the session left it: task statuses, job phases and
  // messages.
  api::ClusterInfo cluster;
  std::vector<BindDecision> binds;
  std::vector<EvictDecision> evictions;
  // Claims whose allocation no pod can use any more (dra/stale_allocations.h).
  std::vector<dra::Deallocation> deallocations;
};

// What the scheduler, not the policy, decides about every cycle.
struct CycleSettings {
  // See partial_gang_release.h.
  int partial_gang_release_cycles = 30;
};

CycleOutcome RunCycle(api::ClusterInfo snapshot, Policy& policy,
                      const CycleSettings& settings = {});

}  // namespace shoal::framework

#endif  // SHOAL_SCHEDULER_FRAMEWORK_CYCLE_H_
