// The parts of a pod's spec that say where it may run: node selector,
// node affinity and tolerations (Placement), inter-pod affinity and
// topology spread (InterPod). Read by the pod decoder (pod_decoder.cc).
#ifndef SHOAL_SCHEDULER_KUBE_DECODE_POD_PLACEMENT_H_
#define SHOAL_SCHEDULER_KUBE_DECODE_POD_PLACEMENT_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "scheduler/api/placement.h"
#include "scheduler/api/pod_affinity.h"
#include "scheduler/kube/decode/reader.h"

namespace shoal::kube {

// One nodeSelectorTerm at `path`.
absl::StatusOr<api::NodeSelectorTerm> Term(const Reader& r, const json& term,
                                           const std::string& path);

// A metav1.LabelSelector at `path`; null or absent is a selector that
// matches nothing (as the API reads it for pod affinity terms and spread).
absl::StatusOr<api::LabelSelector> LabelSelectorAt(const Reader& r,
                                                   const json* sel,
                                                   const std::string& path);

// spec.nodeSelector, spec.affinity.nodeAffinity and spec.tolerations.
absl::StatusOr<std::shared_ptr<api::PlacementConstraints>> Placement(
    const Reader& r, const json& spec);

// spec.affinity.podAffinity/podAntiAffinity and topologySpreadConstraints
// of a pod in namespace `ns` with labels `own`; null when it has none.
absl::StatusOr<std::shared_ptr<const api::InterPodRules>> InterPod(
    const Reader& r, const json& spec, const std::string& ns,
    const api::Labels& own);

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_DECODE_POD_PLACEMENT_H_
