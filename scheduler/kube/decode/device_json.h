// DRA objects written as the API holds them (resource.k8s.io/v1): the
// allocation Shoal writes into a claim's status, and the slices, classes
// and claims a snapshot file carries.
#ifndef SHOAL_SCHEDULER_KUBE_DECODE_DEVICE_JSON_H_
#define SHOAL_SCHEDULER_KUBE_DECODE_DEVICE_JSON_H_

#include <string>

#include "nlohmann/json.hpp"
#include "scheduler/api/devices.h"

namespace shoal::kube {

// The annotation that marks the claim a scheduler made for a pod's
// extended resources served through devices (KEP-5004), value "true".
inline constexpr char kExtendedResourceClaimAnnotation[] =
    "resource.kubernetes.io/extended-resource-claim";

nlohmann::json AllocationJson(const api::DeviceAllocation& a);
nlohmann::json ConsumerJson(const api::ClaimConsumer& c);
nlohmann::json ResourceSliceJson(const api::ResourceSlice& s);
nlohmann::json DeviceClassJson(const api::DeviceClass& c);
nlohmann::json DeviceTaintRuleJson(const api::DeviceTaintRule& r);
nlohmann::json ResourceClaimJson(const api::ResourceClaim& c);

// The body of the POST that creates the claim Shoal made for a pod's
// extended resources (ResourceClaim::to_create), as kube-scheduler's is:
// apiVersion from the claim, metadata with the pod as controller owner
// and the extended-resource-claim annotation, spec.devices.requests; no
// status (written by the status patch that follows).
nlohmann::json NewClaimJson(const api::ResourceClaim& c);

// The JSON patch (RFC 6902) of the claim's status that a bind writes
// first, guarded by the claim's resourceVersion as kube-scheduler's
// update is: a claim changed since the snapshot is a conflict (409), and
// the placement is forgotten.
std::string ClaimStatusPatch(const api::ClaimWrite& w);

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_DECODE_DEVICE_JSON_H_
