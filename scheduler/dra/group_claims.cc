#include "scheduler/dra/group_claims.h"

#include <memory>

namespace shoal::dra {

void ResolveGroupClaims(api::ClusterInfo& cluster) {
  for (api::TaskInfo& task : cluster.tasks) {
    if (task.job == api::kNone || task.pod->resource_claims.empty()) continue;
    const api::JobInfo& job = cluster.jobs[task.job];
    if (job.group_claims.empty()) continue;
    std::shared_ptr<api::PodInfo> copy;
    for (size_t i = 0; i < task.pod->resource_claims.size(); ++i) {
      const api::PodClaim& mine = task.pod->resource_claims[i];
      for (const api::PodClaim& ours : job.group_claims) {
        // The pod's entry must match the group's in every field.
        const bool same =
            mine.name == ours.name &&
            mine.template_name == ours.template_name &&
            (!ours.template_name.empty() || mine.claim == ours.claim);
        if (!same) continue;
        if (copy == nullptr) copy = std::make_shared<api::PodInfo>(*task.pod);
        api::PodClaim& pc = copy->resource_claims[i];
        pc.claim = ours.claim;  // a template's: the group's claim, or ""
        pc.group.api_group = kPodGroupApiGroup;
        pc.group.resource = "podgroups";
        pc.group.name = job.name;
        pc.group.uid = job.uid;
      }
    }
    if (copy != nullptr) task.pod = std::move(copy);
  }
}

}  // namespace shoal::dra
