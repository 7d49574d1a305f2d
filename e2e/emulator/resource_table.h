// The resources the emulator serves, with what makes each behave: its
// scope, whether it has a status subresource, whether list items carry
// their kind (custom resources do, built-in ones do not).
#ifndef SHOAL_E2E_EMULATOR_RESOURCE_TABLE_H_
#define SHOAL_E2E_EMULATOR_RESOURCE_TABLE_H_

#include <string>
#include <vector>

namespace shoal::emulator {

struct ResourceType {
  std::string group;  // "" for the core group
  std::string version;
  std::string resource;  // plural, as in the URL
  std::string kind;
  bool namespaced = true;
  bool has_status = false;
  bool custom = false;  // served from a CustomResourceDefinition

  std::string ApiVersion() const { return group.empty() ? version : group + "/" + version; }
  // "pods", "podgroups.scheduling.volcano.sh": how error messages name it.
  std::string QualifiedName() const { return group.empty() ? resource : resource + "." + group; }
};

// Every resource Shoal or the end-to-end suite touches. `without_groups`
// leaves API groups out, as on a cluster whose CRDs are not installed.
std::vector<ResourceType> DefaultResources(const std::vector<std::string>& without_groups);

}  // namespace shoal::emulator

#endif  // SHOAL_E2E_EMULATOR_RESOURCE_TABLE_H_
