// A pod's spec.resourceClaims (DRA), each resolved to the ResourceClaim
// it uses: resourceClaimName, or for resourceClaimTemplateName the claim
// the resourceclaim controller made, as pod status.resourceClaimStatuses
// names it (none yet: the pod waits for it).
#ifndef SHOAL_SCHEDULER_KUBE_DECODE_POD_RESOURCE_CLAIMS_H_
#define SHOAL_SCHEDULER_KUBE_DECODE_POD_RESOURCE_CLAIMS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "scheduler/api/devices.h"
#include "scheduler/kube/decode/reader.h"

namespace shoal::kube {

absl::StatusOr<std::vector<api::PodClaim>> DecodePodResourceClaims(
    const Reader& r, const nlohmann::json& spec, const nlohmann::json& status);

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_DECODE_POD_RESOURCE_CLAIMS_H_
