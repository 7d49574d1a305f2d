// What kube-apiserver's validation does with the CEL selectors of Dynamic
// Resource Allocation objects: a DeviceClass's spec.selectors, a
// ResourceClaim's requests (v1 `exactly` and `firstAvailable`, v1beta1
// selectors on the request itself) and a ResourceClaimTemplate's
// spec.spec. Each expression is type-checked as cel-go checks it
// (scheduler/cel/checker.h); one the API server would refuse makes the
// write a 422 Invalid naming the field, in the server's words, so a
// selector that passes here is one a real cluster accepts too.
#ifndef SHOAL_E2E_EMULATOR_DEVICE_RULES_H_
#define SHOAL_E2E_EMULATOR_DEVICE_RULES_H_

#include <optional>

#include "e2e/emulator/api_error.h"
#include "e2e/emulator/resource_table.h"
#include "nlohmann/json.hpp"

namespace shoal::emulator {

// Refuses `object`, about to be created (`before` null) or to replace
// `before`, when one of its selectors does not type-check. As the API
// server does, an expression unchanged from `before` is not held to
// today's rules again.
std::optional<ApiError> CheckDeviceSelectors(const ResourceType& type,
                                             const nlohmann::json& object,
                                             const nlohmann::json* before);

}  // namespace shoal::emulator

#endif  // SHOAL_E2E_EMULATOR_DEVICE_RULES_H_
