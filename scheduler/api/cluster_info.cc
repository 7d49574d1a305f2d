#include "scheduler/api/cluster_info.h"

#include <algorithm>

namespace shoal::api {

Resource ClusterInfo::GangMinimum(const JobInfo& job) const {
  if (job.min_resources.has_value()) return *job.min_resources;
  std::vector<TaskIndex> order(job.tasks);
  std::stable_sort(order.begin(), order.end(),
                   [this](TaskIndex a, TaskIndex b) {
                     return tasks[a].pod->created < tasks[b].pod->created;
                   });
  Resource sum;
  for (size_t i = 0;
       i < order.size() && i < static_cast<size_t>(job.min_member); ++i) {
    sum += tasks[order[i]].request();
  }
  return sum;
}

Resource ClusterInfo::UnheldMinimum(const JobInfo& job) const {
  Resource unheld = GangMinimum(job) - Held(job);
  unheld.MaxWith(Resource());
  return unheld;
}

Resource ClusterInfo::Held(const JobInfo& job) const {
  Resource held;
  for (TaskIndex t : job.tasks) {
    if (HoldsShare(tasks[t].status)) held += tasks[t].request();
  }
  return held;
}

bool IndexesMatchPositions(const ClusterInfo& c) {
  for (size_t i = 0; i < c.jobs.size(); ++i) {
    if (c.jobs[i].index != static_cast<JobIndex>(i)) return false;
  }
  for (size_t i = 0; i < c.queues.size(); ++i) {
    if (c.queues[i].index != static_cast<int32_t>(i)) return false;
  }
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    if (c.nodes[i].index() != static_cast<NodeIndex>(i)) return false;
  }
  return true;
}

}  // namespace shoal::api
