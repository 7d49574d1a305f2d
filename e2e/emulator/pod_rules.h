// What the API server itself does for pods, on a cluster with no kubelet
// and no controllers: admission (defaults, priority from the class,
// validation), the binding and eviction subresources, graceful deletion
// (a pod on a node is only marked for deletion until someone deletes it
// with grace 0, as a kubelet would), and which spec fields may change.
#ifndef SHOAL_E2E_EMULATOR_POD_RULES_H_
#define SHOAL_E2E_EMULATOR_POD_RULES_H_

#include <optional>
#include <string>

#include "e2e/emulator/object_store.h"

namespace shoal::emulator {

struct PodResources {
  const ResourceType* pods;
  const ResourceType* priority_classes;
  const ResourceType* disruption_budgets;
};

// Fills defaults and resolves spec.priority; refuses an invalid pod.
std::optional<ApiError> AdmitPod(const ObjectStore& store,
                                 const PodResources& r, nlohmann::json& pod);
// An update may change only what Kubernetes lets change after creation.
std::optional<ApiError> CheckPodUpdate(const nlohmann::json& before,
                                       const nlohmann::json& after);

Reply BindPod(ObjectStore& store, const PodResources& r, const std::string& ns,
              const std::string& name, const nlohmann::json& binding);
// `grace`: DeleteOptions.gracePeriodSeconds when given.
Reply DeletePod(ObjectStore& store, const PodResources& r,
                const std::string& ns, const std::string& name,
                std::optional<int64_t> grace);
// Refused with 429 when a PodDisruptionBudget selecting the pod allows
// no disruption (without a disruption controller, a budget's status is
// whatever its writer set).
Reply EvictPod(ObjectStore& store, const PodResources& r, const std::string& ns,
               const std::string& name, const nlohmann::json& eviction);

}  // namespace shoal::emulator

#endif  // SHOAL_E2E_EMULATOR_POD_RULES_H_
