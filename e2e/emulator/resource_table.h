// The resources the emulator serves, with what makes each behave: its
// scope, whether it has a status subresource, whether list items carry
// their kind (custom resources do, built-in ones do not), and for a
// custom resource the structural schema its objects are pruned to.
//
// Custom resources are served as their CustomResourceDefinition says,
// version by version: installing, changing or deleting a CRD changes what
// is served at once (a real API server takes a moment to establish it).
#ifndef SHOAL_E2E_EMULATOR_RESOURCE_TABLE_H_
#define SHOAL_E2E_EMULATOR_RESOURCE_TABLE_H_

#include <deque>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "nlohmann/json.hpp"

namespace shoal::emulator {

struct ResourceType {
  std::string group;  // "" for the core group
  std::string version;
  std::string resource;  // plural, as in the URL
  std::string kind;
  bool namespaced = true;
  bool has_status = false;
  bool custom = false;  // served from a CustomResourceDefinition
  // A custom resource's openAPIV3Schema for this version; null: none, so
  // nothing is pruned.
  nlohmann::json schema = nullptr;

  std::string ApiVersion() const {
    return group.empty() ? version : group + "/" + version;
  }
  // "pods", "podgroups.scheduling.volcano.sh": how error messages name it.
  std::string QualifiedName() const {
    return group.empty() ? resource : resource + "." + group;
  }
  // The same resource (objects are stored once, whatever the version).
  bool SameResource(const ResourceType& o) const {
    return resource == o.resource && group == o.group;
  }
};

// Every built-in resource Shoal or the end-to-end suite touches, and,
// with `custom_kinds`, Shoal's custom resources (both PodGroup APIs and
// Queue) as permissive CRDs would serve them: with a status subresource
// and no schema. `without_groups` leaves API groups out, as on a cluster
// whose CRDs are not installed.
std::vector<ResourceType> DefaultResources(
    const std::vector<std::string>& without_groups, bool custom_kinds = true);

// Removes from `value` what `schema` does not declare, as the API server
// prunes custom resources: unknown fields go unless
// x-kubernetes-preserve-unknown-fields is set; apiVersion, kind and
// metadata stay at the root.
void PruneToSchema(nlohmann::json& value, const nlohmann::json& schema);

// What is served now. Thread-safe; a type once returned stays valid (a
// changed CRD gets new entries; old ones are kept, no longer found).
class ResourceTable {
 public:
  explicit ResourceTable(std::vector<ResourceType> initial);

  const ResourceType* Find(const std::string& group, const std::string& version,
                           const std::string& resource) const;
  // The resources of one group/version, for discovery; empty when none.
  std::vector<const ResourceType*> OfGroupVersion(
      const std::string& group, const std::string& version) const;
  // Every group/version served outside the core group, in order.
  std::vector<std::pair<std::string, std::string>> GroupVersions() const;

  // Serves the CRD's `served` versions as it declares them, in place of
  // what was served for its group and plural before.
  void Install(const nlohmann::json& crd);
  // Its group and plural are no longer served.
  void Uninstall(const nlohmann::json& crd);

 private:
  mutable absl::Mutex mu_;
  std::deque<ResourceType> kept_ ABSL_GUARDED_BY(mu_);
  std::vector<const ResourceType*> served_ ABSL_GUARDED_BY(mu_);
};

}  // namespace shoal::emulator

#endif  // SHOAL_E2E_EMULATOR_RESOURCE_TABLE_H_
