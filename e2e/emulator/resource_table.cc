#include "e2e/emulator/resource_table.h"

#include <algorithm>

namespace shoal::emulator {

std::vector<ResourceType> DefaultResources(const std::vector<std::string>& without_groups) {
  std::vector<ResourceType> all = {
      {"", "v1", "namespaces", "Namespace", false, true, false},
      {"", "v1", "nodes", "Node", false, true, false},
      {"", "v1", "pods", "Pod", true, true, false},
      {"", "v1", "events", "Event", true, false, false},
      // POST only: the older form of pods/NAME/binding.
      {"", "v1", "bindings", "Binding", true, false, false},
      {"", "v1", "configmaps", "ConfigMap", true, false, false},
      {"", "v1", "serviceaccounts", "ServiceAccount", true, false, false},
      {"events.k8s.io", "v1", "events", "Event", true, false, false},
      {"scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", false, false, false},
      {"policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true, true, false},
      {"coordination.k8s.io", "v1", "leases", "Lease", true, false, false},
      // What `kubectl apply -f conf/` creates.
      {"apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition",
       false, true, false},
      {"rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false, false, false},
      {"rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", false,
       false, false},
      {"rbac.authorization.k8s.io", "v1", "roles", "Role", true, false, false},
      {"rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true, false, false},
      {"apps", "v1", "deployments", "Deployment", true, true, false},
      {"scheduling.volcano.sh", "v1beta1", "podgroups", "PodGroup", true, true, true},
      {"scheduling.volcano.sh", "v1beta1", "queues", "Queue", false, true, true},
      {"scheduling.x-k8s.io", "v1alpha1", "podgroups", "PodGroup", true, true, true},
  };
  std::vector<ResourceType> served;
  for (auto& r : all) {
    if (std::find(without_groups.begin(), without_groups.end(), r.group) == without_groups.end()) {
      served.push_back(std::move(r));
    }
  }
  return served;
}

}  // namespace shoal::emulator
