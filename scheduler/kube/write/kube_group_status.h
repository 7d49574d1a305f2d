// The status conditions Kubernetes' own groups carry once a scheduler has
// tried them, written as kube-scheduler writes them (1.36's
// PodGroupScheduled, 1.37's PodGroupInitiallyScheduled and
// CompositePodGroupInitiallyScheduled): True/Scheduled once the group's
// minimum is placed, False/Unschedulable with the reason until then. Once
// True it stays (1.37's condition is terminal; Shoal keeps 1.36's the
// same rather than flip it as pods come and go). A tree's verdict is
// written on each of its objects: a leaf is scheduled when it is whole, a
// composite when minGroupCount of its children are.
#ifndef SHOAL_SCHEDULER_KUBE_WRITE_KUBE_GROUP_STATUS_H_
#define SHOAL_SCHEDULER_KUBE_WRITE_KUBE_GROUP_STATUS_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "scheduler/api/cluster_info.h"

namespace shoal::kube {

// One object's verdict.
struct KubeGroupVerdict {
  std::string api_version;  // scheduling.k8s.io/v1beta1, ...
  std::string resource;     // "podgroups" or "compositepodgroups"
  std::string ns, name;
  bool scheduled = false;
  std::string message;  // why not, when not
  std::string Path() const {
    return "/apis/" + api_version + "/namespaces/" + ns + "/" + resource + "/" +
           name;
  }
};

// The verdicts for job `job` of `cluster` (a scheduling.k8s.io PodGroup's
// or a tree's; none for others), its PodGroups in `pod_group_version`
// and its CompositePodGroups in `composite_version`.
std::vector<KubeGroupVerdict> KubeGroupVerdicts(
    const api::ClusterInfo& cluster, const api::JobInfo& job,
    const std::string& pod_group_version, const std::string& composite_version);

// The `status` to merge into the object, given the `observed` one: its
// conditions with ours set (other writers' kept), or null when the
// observed status says it already (or says True, which stays).
nlohmann::json DesiredKubeGroupStatus(const KubeGroupVerdict& verdict,
                                      const nlohmann::json& observed,
                                      absl::Time now);

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_WRITE_KUBE_GROUP_STATUS_H_
