#include "scheduler/partial_gangs.h"

namespace shoal {

std::vector<api::TaskIndex> PartialGangs::Review(
    const api::ClusterInfo& cluster) {
  std::vector<api::TaskIndex> release;
  std::map<std::string, int> still;
  for (const api::JobInfo& job : cluster.jobs) {
    if (job.source == api::GroupSource::kSinglePod) continue;
    bool partial = job.ScheduledCount() > 0 &&
                   job.ReadyCount() < job.min_member &&
                   job.Count(api::TaskStatus::kPipelined) == 0;
    if (!partial) continue;
    int cycles = cycles_below_minimum_[job.uid] + 1;
    if (cycles <= limit_) {
      still[job.uid] = cycles;
      continue;
    }
    for (api::TaskIndex t : job.tasks) {
      api::TaskStatus s = cluster.tasks[t].status;
      if (s == api::TaskStatus::kBound || s == api::TaskStatus::kRunning)
        release.push_back(t);
    }
  }
  cycles_below_minimum_ = std::move(still);
  return release;
}

}  // namespace shoal
