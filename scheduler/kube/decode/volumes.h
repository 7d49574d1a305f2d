// Decodes what kube-scheduler's VolumeBinding, VolumeZone and
// NodeVolumeLimits filters read: PersistentVolumeClaims, PersistentVolumes,
// StorageClasses, CSINodes, and the claims a pod's volumes use. Refusals name
// the object and the field:
//   persistentvolume pv-1: spec.nodeAffinity.required.nodeSelectorTerms[0]
//     .matchExpressions[0].operator: unknown operator "Foo" (...)
// Nothing here throws, whatever the object holds.
#ifndef SHOAL_SCHEDULER_KUBE_DECODE_VOLUMES_H_
#define SHOAL_SCHEDULER_KUBE_DECODE_VOLUMES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "scheduler/api/volume.h"

namespace shoal::kube {

// spec.volumes of a pod named `pod_name`: persistentVolumeClaim.claimName,
// and for a generic ephemeral volume the claim "<pod name>-<volume name>".
// `what` starts every refusal ("pod team-a/w-0").
absl::StatusOr<std::vector<api::VolumeClaimRef>> DecodePodVolumeClaims(
    const nlohmann::json& spec, const std::string& pod_name,
    const std::string& what);

absl::StatusOr<api::PersistentVolumeClaim> DecodePersistentVolumeClaim(
    const nlohmann::json& obj);
absl::StatusOr<api::PersistentVolume> DecodePersistentVolume(
    const nlohmann::json& obj);
absl::StatusOr<api::StorageClass> DecodeStorageClass(const nlohmann::json& obj);
// storage.k8s.io/v1 CSINode: metadata.name (the node's) and
// spec.drivers[].name / .allocatable.count.
absl::StatusOr<api::CsiNode> DecodeCsiNode(const nlohmann::json& obj);

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_DECODE_VOLUMES_H_
