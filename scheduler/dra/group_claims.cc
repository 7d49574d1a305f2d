#include "scheduler/dra/group_claims.h"

#include <memory>
#include <string>
#include <vector>

namespace shoal::dra {

namespace {

// The PodGroup whose claims a pod's entries may name.
struct Group {
  const std::vector<api::PodClaim>* claims = nullptr;
  const std::string* name = nullptr;
  const std::string* uid = nullptr;
};

// The task's job's PodGroup, or, in a CompositePodGroup tree, its leaf's.
Group GroupOf(const api::ClusterInfo& cluster, const api::TaskInfo& task) {
  const api::JobInfo& job = cluster.jobs[task.job];
  if (!job.group_claims.empty())
    return {&job.group_claims, &job.name, &job.uid};
  if (task.sub_group == api::kNone) return {};
  const api::SubGroup& g = job.sub_groups[task.sub_group];
  if (g.leaf == api::kNone) return {};
  const api::LeafPodGroup& leaf =
      job.sub_group_policies[g.policy].leaves[g.leaf];
  if (leaf.claims.empty()) return {};
  return {&leaf.claims, &leaf.name, &leaf.uid};
}

}  // namespace

void ResolveGroupClaims(api::ClusterInfo& cluster) {
  for (api::TaskInfo& task : cluster.tasks) {
    if (task.job == api::kNone || task.pod->resource_claims.empty()) continue;
    const Group group = GroupOf(cluster, task);
    if (group.claims == nullptr) continue;
    std::shared_ptr<api::PodInfo> copy;
    for (size_t i = 0; i < task.pod->resource_claims.size(); ++i) {
      const api::PodClaim& mine = task.pod->resource_claims[i];
      for (const api::PodClaim& ours : *group.claims) {
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
        pc.group.name = *group.name;
        pc.group.uid = *group.uid;
      }
    }
    if (copy != nullptr) task.pod = std::move(copy);
  }
}

}  // namespace shoal::dra
