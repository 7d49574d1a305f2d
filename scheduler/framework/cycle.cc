#include "scheduler/framework/cycle.h"

#include "scheduler/framework/partial_gang_release.h"
#include "scheduler/metrics/scheduler_metrics.h"

namespace shoal::framework {

CycleOutcome RunCycle(api::ClusterInfo snapshot, Policy& policy,
                      const CycleSettings& settings) {
  // Judged on the snapshot: their pods wait this cycle, and are placed
  // again once the claims are seen deallocated.
  std::vector<dra::Deallocation> stale =
      dra::StaleAllocations(snapshot, snapshot.now);
  Session session(std::move(snapshot), policy);
  for (auto& a : policy.actions) {
    metrics::ScopedTimer timed(metrics::Shoal().ActionLatency(a.name));
    a.action->Execute(session);
  }
  ReleasePartialGangs(session, settings.partial_gang_release_cycles);
  session.Close();
  Decisions decisions = session.TakeDecisions();
  return CycleOutcome{std::move(session.cluster()), std::move(decisions.binds),
                      std::move(decisions.evictions), std::move(stale)};
}

}  // namespace shoal::framework
