// What kube-apiserver's validation refuses in the gang objects of
// scheduling.k8s.io: a Workload's templates (v1alpha2 and later), a
// PodGroup (v1alpha2, v1beta1, v1alpha3) and a CompositePodGroup
// (v1alpha3, Kubernetes 1.37). A gang policy must state its count
// (minCount, minGroupCount) and it must be at least 1; a group names at
// most one topology key; a CompositePodGroup, and a PodGroup with a
// parent, must name their Workload (workloadRef). The write is a 422
// Invalid naming the field, in the server's words (1.36.3's answer to a
// Workload without minCount is the model, in scheduling_rules_test.cc),
// so an object the emulator takes is one a real server takes too.
#ifndef SHOAL_E2E_EMULATOR_SCHEDULING_RULES_H_
#define SHOAL_E2E_EMULATOR_SCHEDULING_RULES_H_

#include <optional>

#include "e2e/emulator/api_error.h"
#include "e2e/emulator/resource_table.h"
#include "nlohmann/json.hpp"

namespace shoal::emulator {

// Refuses `object`, about to be written as `type`, when it breaks one of
// the rules above; nullopt for other kinds.
std::optional<ApiError> CheckSchedulingGroups(const ResourceType& type,
                                              const nlohmann::json& object);

}  // namespace shoal::emulator

#endif  // SHOAL_E2E_EMULATOR_SCHEDULING_RULES_H_
