#include "scheduler/api/cluster_info.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "scheduler/api/resource_name.h"

namespace shoal::api {

Resource ClusterInfo::GangMinimum(const JobInfo& job) const {
  // A PodGroup's minResources is its writer's word, but a writer that
  // knows nothing of DRA names no devices: those the first pods claim
  // are added ("deviceclass/..." that it does not name).
  bool claims_devices = false;
  for (TaskIndex t : job.tasks)
    claims_devices |= tasks[t].with_devices != nullptr;
  if (job.min_resources.has_value() && !claims_devices) {
    return *job.min_resources;
  }
  std::vector<TaskIndex> order(job.tasks);
  std::stable_sort(order.begin(), order.end(),
                   [this](TaskIndex a, TaskIndex b) {
                     return tasks[a].pod->created < tasks[b].pod->created;
                   });
  Resource sum;
  for (size_t i = 0;
       i < order.size() && i < static_cast<size_t>(job.min_member); ++i) {
    sum += tasks[order[i]].counted();
  }
  if (!job.min_resources.has_value()) return sum;
  Resource minimum = *job.min_resources;
  for (size_t id = 0; id < sum.size(); ++id) {
    auto rid = static_cast<ResourceId>(id);
    if (minimum.Get(rid) == 0 && sum.Get(rid) > 0 &&
        absl::StartsWith(ResourceName(rid), "deviceclass/")) {
      minimum.Set(rid, sum.Get(rid));
    }
  }
  return minimum;
}

Resource ClusterInfo::UnheldMinimum(const JobInfo& job) const {
  Resource unheld = GangMinimum(job) - Held(job);
  unheld.MaxWith(Resource());
  return unheld;
}

Resource ClusterInfo::Held(const JobInfo& job) const {
  Resource held;
  for (TaskIndex t : job.tasks) {
    if (HoldsShare(tasks[t].status)) held += tasks[t].counted();
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
