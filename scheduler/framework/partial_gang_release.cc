#include "scheduler/framework/partial_gang_release.h"

#include "scheduler/framework/statement.h"

namespace shoal::framework {

void ReleasePartialGangs(Session& session, int limit) {
  api::ClusterInfo& cluster = session.cluster();
  for (const api::JobInfo& job : cluster.jobs) {
    if (!job.PartlyBound() || job.cycles_below_minimum + 1 <= limit) continue;
    Statement release(session);
    for (api::TaskIndex t : job.tasks) {
      api::TaskStatus s = cluster.tasks[t].status;
      if (s == api::TaskStatus::kBound || s == api::TaskStatus::kRunning) {
        release.Evict(t, "gang-incomplete", "");
      }
    }
    release.Commit();
  }
}

}  // namespace shoal::framework
