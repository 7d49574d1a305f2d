// Claims of a whole PodGroup (KEP-5729, scheduling.k8s.io PodGroup
// spec.resourceClaims): one claim reserved for the group and shared by
// its pods. A pod uses it through an entry of its own spec.resourceClaims
// that matches the group's entry exactly (name, and the same claim or
// template); such an entry resolves to the group's claim (for a
// template, the claim the resourceclaim controller made for the group),
// and the bind reserves the claim for the PodGroup, not for the pod. In a
// CompositePodGroup tree (one job), each leaf PodGroup's claims are its
// own pods' (api::LeafPodGroup::claims), reserved for that leaf.
#ifndef SHOAL_SCHEDULER_DRA_GROUP_CLAIMS_H_
#define SHOAL_SCHEDULER_DRA_GROUP_CLAIMS_H_

#include "scheduler/api/cluster_info.h"

namespace shoal::dra {

// The API group a PodGroup consumer of a claim names.
inline constexpr char kPodGroupApiGroup[] = "scheduling.k8s.io";

// At session open: each pod of a PodGroup with claims has its matching
// entries resolved to the group's claims (PodClaim::group set).
void ResolveGroupClaims(api::ClusterInfo& cluster);

}  // namespace shoal::dra

#endif  // SHOAL_SCHEDULER_DRA_GROUP_CLAIMS_H_
