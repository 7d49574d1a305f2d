#include "scheduler/framework/cycle.h"

namespace shoal::framework {

CycleOutcome RunCycle(api::ClusterInfo snapshot, Policy& policy) {
  Session session(std::move(snapshot), policy);
  for (auto& a : policy.actions) a.action->Execute(session);
  session.Close();
  return CycleOutcome{std::move(session.cluster()), std::move(session.binds()),
                      std::move(session.evictions())};
}

}  // namespace shoal::framework
