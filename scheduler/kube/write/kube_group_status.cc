#include "scheduler/kube/write/kube_group_status.h"

#include "absl/strings/match.h"
#include "scheduler/api/sub_groups.h"
#include "scheduler/kube/client/timestamps.h"
#include "scheduler/kube/write/pod_group_status.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

// The condition type of `resource` in `api_version`.
std::string ConditionType(const std::string& api_version,
                          const std::string& resource) {
  if (absl::EndsWith(api_version, "/v1alpha2")) return "PodGroupScheduled";
  return resource == "compositepodgroups"
             ? "CompositePodGroupInitiallyScheduled"
             : "PodGroupInitiallyScheduled";
}

}  // namespace

std::vector<KubeGroupVerdict> KubeGroupVerdicts(
    const api::ClusterInfo& cluster, const api::JobInfo& job,
    const std::string& pod_group_version,
    const std::string& composite_version) {
  std::vector<KubeGroupVerdict> out;
  const std::string why = PendingReason(job);
  if (job.source == api::GroupSource::kKubePodGroup) {
    if (pod_group_version.empty() || job.group_missing) return out;
    const bool scheduled = job.ReadyCount() >= job.min_member;
    out.push_back({pod_group_version, "podgroups", job.ns, job.name, scheduled,
                   scheduled ? "" : why});
    return out;
  }
  if (job.source != api::GroupSource::kCompositeTree) return out;
  const std::vector<int32_t> ready = api::SubGroupsReady(cluster, job);
  const std::vector<int32_t> whole = api::WholeByPolicy(job, ready);
  // Leaves without pods have no sub-group: not whole.
  for (size_t p = 0; p < job.sub_group_policies.size(); ++p) {
    const api::SubGroupPolicy& policy = job.sub_group_policies[p];
    const bool scheduled =
        job.refusal.empty() && whole[p] >= std::max(1, policy.min_groups);
    if (!composite_version.empty()) {
      out.push_back({composite_version, "compositepodgroups", job.ns,
                     policy.name, scheduled, scheduled ? "" : why});
    }
    if (pod_group_version.empty()) continue;
    for (size_t l = 0; l < policy.leaves.size(); ++l) {
      bool leaf_whole = false;
      for (size_t g = 0; g < job.sub_groups.size(); ++g) {
        const api::SubGroup& group = job.sub_groups[g];
        if (group.policy == static_cast<int32_t>(p) &&
            group.leaf == static_cast<int32_t>(l)) {
          leaf_whole = ready[g] >= group.size;
        }
      }
      const bool leaf_scheduled = job.refusal.empty() && leaf_whole;
      out.push_back({pod_group_version, "podgroups", job.ns,
                     policy.leaves[l].name, leaf_scheduled,
                     leaf_scheduled ? "" : why});
    }
  }
  return out;
}

json DesiredKubeGroupStatus(const KubeGroupVerdict& verdict,
                            const json& observed, absl::Time now) {
  const std::string type = ConditionType(verdict.api_version, verdict.resource);
  json conditions = json::array();
  const json* seen = observed.is_object() && observed.contains("conditions")
                         ? &observed["conditions"]
                         : nullptr;
  const json* mine = nullptr;
  if (seen != nullptr && seen->is_array()) {
    for (const json& c : *seen) {
      if (c.is_object() && c.value("type", "") == type) {
        mine = &c;
      } else {
        conditions.push_back(c);  // another writer's, kept
      }
    }
  }
  // Scheduled once stays scheduled.
  if (mine != nullptr && mine->value("status", "") == "True") return nullptr;
  if (!verdict.scheduled && verdict.message.empty()) return nullptr;
  json condition = {
      {"type", type},
      {"status", verdict.scheduled ? "True" : "False"},
      {"reason", verdict.scheduled ? "Scheduled" : "Unschedulable"},
      {"message", verdict.message},
      {"lastTransitionTime", Rfc3339(now)}};
  if (mine != nullptr && mine->value("status", "") == condition["status"] &&
      mine->value("reason", "") == condition["reason"] &&
      mine->value("message", "") == condition["message"]) {
    return nullptr;  // says it already
  }
  if (mine != nullptr && mine->value("status", "") == condition["status"] &&
      mine->contains("lastTransitionTime")) {
    condition["lastTransitionTime"] = (*mine)["lastTransitionTime"];
  }
  conditions.push_back(std::move(condition));
  return {{"conditions", std::move(conditions)}};
}

}  // namespace shoal::kube
