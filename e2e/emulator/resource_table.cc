#include "e2e/emulator/resource_table.h"

#include <algorithm>

namespace shoal::emulator {

using nlohmann::json;

std::vector<ResourceType> DefaultResources(
    const std::vector<std::string>& without_groups, bool custom_kinds) {
  std::vector<ResourceType> all = {
      {"", "v1", "namespaces", "Namespace", false, true, false},
      {"", "v1", "nodes", "Node", false, true, false},
      {"", "v1", "pods", "Pod", true, true, false},
      {"", "v1", "events", "Event", true, false, false},
      // POST only: the older form of pods/NAME/binding.
      {"", "v1", "bindings", "Binding", true, false, false},
      {"", "v1", "configmaps", "ConfigMap", true, false, false},
      {"", "v1", "serviceaccounts", "ServiceAccount", true, false, false},
      {"", "v1", "persistentvolumes", "PersistentVolume", false, true, false},
      {"", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true, true,
       false},
      {"events.k8s.io", "v1", "events", "Event", true, false, false},
      {"scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", false,
       false, false},
      {"storage.k8s.io", "v1", "storageclasses", "StorageClass", false, false,
       false},
      {"storage.k8s.io", "v1", "csinodes", "CSINode", false, false, false},
      {"policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true,
       true, false},
      {"coordination.k8s.io", "v1", "leases", "Lease", true, false, false},
      // What `kubectl apply -f conf/` creates.
      {"apiextensions.k8s.io", "v1", "customresourcedefinitions",
       "CustomResourceDefinition", false, true, false},
      {"rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false,
       false, false},
      {"rbac.authorization.k8s.io", "v1", "clusterrolebindings",
       "ClusterRoleBinding", false, false, false},
      {"rbac.authorization.k8s.io", "v1", "roles", "Role", true, false, false},
      {"rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true,
       false, false},
      {"apps", "v1", "deployments", "Deployment", true, true, false},
      // Kubernetes' own gang API with its feature gates on: v1alpha1 as
      // 1.35 serves it, v1alpha2 (and its PodGroups) as 1.36, v1beta1 and
      // v1alpha3 (with CompositePodGroups) as 1.37. No real server serves
      // them all at once; objects are stored once whatever the version,
      // so each test's objects read in the version Shoal watches.
      {"scheduling.k8s.io", "v1alpha1", "workloads", "Workload", true, false,
       false},
      {"scheduling.k8s.io", "v1alpha2", "workloads", "Workload", true, false,
       false},
      {"scheduling.k8s.io", "v1alpha2", "podgroups", "PodGroup", true, true,
       false},
      {"scheduling.k8s.io", "v1beta1", "workloads", "Workload", true, false,
       false},
      {"scheduling.k8s.io", "v1beta1", "podgroups", "PodGroup", true, true,
       false},
      {"scheduling.k8s.io", "v1alpha3", "workloads", "Workload", true, false,
       false},
      {"scheduling.k8s.io", "v1alpha3", "podgroups", "PodGroup", true, true,
       false},
      {"scheduling.k8s.io", "v1alpha3", "compositepodgroups",
       "CompositePodGroup", true, true, false},
      // Dynamic Resource Allocation as 1.34 serves it (GA, v1).
      {"resource.k8s.io", "v1", "resourceslices", "ResourceSlice", false, false,
       false},
      {"resource.k8s.io", "v1", "deviceclasses", "DeviceClass", false, false,
       false},
      {"resource.k8s.io", "v1", "resourceclaims", "ResourceClaim", true, true,
       false},
      {"resource.k8s.io", "v1", "resourceclaimtemplates",
       "ResourceClaimTemplate", true, false, false},
  };
  if (custom_kinds) {
    all.push_back({"scheduling.volcano.sh", "v1beta1", "podgroups", "PodGroup",
                   true, true, true});
    all.push_back({"scheduling.volcano.sh", "v1beta1", "queues", "Queue", false,
                   true, true});
    all.push_back({"scheduling.x-k8s.io", "v1alpha1", "podgroups", "PodGroup",
                   true, true, true});
    all.push_back({"topology.volcano.sh", "v1alpha1", "hypernodes", "HyperNode",
                   false, true, true});
  }
  std::vector<ResourceType> served;
  for (auto& r : all) {
    if (std::find(without_groups.begin(), without_groups.end(), r.group) ==
        without_groups.end()) {
      served.push_back(std::move(r));
    }
  }
  return served;
}

namespace {

bool PreservesUnknown(const json& schema) {
  return schema.is_object() &&
         schema.value("x-kubernetes-preserve-unknown-fields", false);
}

// The schema a field of an object schema is checked against: its
// property, else additionalProperties when that is a schema; null when
// the field is unknown.
const json* FieldSchema(const json& schema, const std::string& field) {
  if (!schema.is_object()) return nullptr;
  auto properties = schema.find("properties");
  if (properties != schema.end() && properties->is_object()) {
    auto it = properties->find(field);
    if (it != properties->end()) return &*it;
  }
  auto additional = schema.find("additionalProperties");
  if (additional != schema.end() && additional->is_object())
    return &*additional;
  return nullptr;
}

const json* ItemsSchema(const json& schema) {
  if (!schema.is_object()) return nullptr;
  auto items = schema.find("items");
  return items != schema.end() && items->is_object() ? &*items : nullptr;
}

void Prune(json& value, const json* schema, bool root);

// Under x-kubernetes-preserve-unknown-fields: unknown fields stay, known
// ones are still pruned by their own schema.
void SkipPrune(json& value, const json* schema) {
  if (schema == nullptr) return;
  if (value.is_object()) {
    for (auto& [field, v] : value.items()) {
      if (const json* s = FieldSchema(*schema, field)) Prune(v, s, false);
    }
  } else if (value.is_array()) {
    for (json& v : value) SkipPrune(v, ItemsSchema(*schema));
  }
}

void Prune(json& value, const json* schema, bool root) {
  if (schema != nullptr && PreservesUnknown(*schema)) {
    SkipPrune(value, schema);
    return;
  }
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end();) {
      const std::string& field = it.key();
      const json* s = schema == nullptr ? nullptr : FieldSchema(*schema, field);
      if (root &&
          (field == "apiVersion" || field == "kind" || field == "metadata")) {
        ++it;
      } else if (s != nullptr) {
        Prune(it.value(), s, false);
        ++it;
      } else {
        it = value.erase(it);
      }
    }
  } else if (value.is_array()) {
    for (json& v : value)
      Prune(v, schema == nullptr ? nullptr : ItemsSchema(*schema), false);
  }
}

}  // namespace

void PruneToSchema(json& value, const json& schema) {
  if (schema.is_object()) Prune(value, &schema, /*root=*/true);
}

ResourceTable::ResourceTable(std::vector<ResourceType> initial) {
  absl::MutexLock lock(&mu_);
  for (auto& r : initial) {
    kept_.push_back(std::move(r));
    served_.push_back(&kept_.back());
  }
}

const ResourceType* ResourceTable::Find(const std::string& group,
                                        const std::string& version,
                                        const std::string& resource) const {
  absl::MutexLock lock(&mu_);
  for (const ResourceType* r : served_) {
    if (r->group == group && r->version == version && r->resource == resource)
      return r;
  }
  return nullptr;
}

std::vector<const ResourceType*> ResourceTable::OfGroupVersion(
    const std::string& group, const std::string& version) const {
  absl::MutexLock lock(&mu_);
  std::vector<const ResourceType*> out;
  for (const ResourceType* r : served_) {
    if (r->group == group && r->version == version) out.push_back(r);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> ResourceTable::GroupVersions()
    const {
  absl::MutexLock lock(&mu_);
  std::vector<std::pair<std::string, std::string>> out;
  for (const ResourceType* r : served_) {
    std::pair<std::string, std::string> gv{r->group, r->version};
    if (!r->group.empty() && std::find(out.begin(), out.end(), gv) == out.end())
      out.push_back(gv);
  }
  return out;
}

void ResourceTable::Install(const json& crd) {
  const json& spec = crd.value("spec", json::object());
  const json& names = spec.value("names", json::object());
  ResourceType base;
  base.group = spec.value("group", "");
  base.resource = names.value("plural", "");
  base.kind = names.value("kind", "");
  base.namespaced = spec.value("scope", "Namespaced") == "Namespaced";
  base.custom = true;
  absl::MutexLock lock(&mu_);
  served_.erase(std::remove_if(served_.begin(), served_.end(),
                               [&](const ResourceType* r) {
                                 return r->SameResource(base);
                               }),
                served_.end());
  const json& versions = spec.value("versions", json::array());
  if (!versions.is_array()) return;
  for (const json& v : versions) {
    if (!v.is_object() || !v.value("served", false)) continue;
    ResourceType type = base;
    type.version = v.value("name", "");
    const json& subresources = v.value("subresources", json::object());
    type.has_status =
        subresources.is_object() && subresources.contains("status");
    const json& schema = v.value("schema", json::object());
    if (schema.is_object() && schema.contains("openAPIV3Schema")) {
      type.schema = schema["openAPIV3Schema"];
    }
    kept_.push_back(std::move(type));
    served_.push_back(&kept_.back());
  }
}

void ResourceTable::Uninstall(const json& crd) {
  const json& spec = crd.value("spec", json::object());
  ResourceType gone;
  gone.group = spec.value("group", "");
  gone.resource = spec.value("names", json::object()).value("plural", "");
  absl::MutexLock lock(&mu_);
  served_.erase(std::remove_if(served_.begin(), served_.end(),
                               [&](const ResourceType* r) {
                                 return r->SameResource(gone);
                               }),
                served_.end());
}

}  // namespace shoal::emulator
