// Extended resources backed by devices (KEP-5004, on by default from
// Kubernetes 1.36): a pod asking `nvidia.com/gpu: 1` keeps working on a
// node whose GPUs are published only through DRA. A DeviceClass serves
// the extended resource its spec.extendedResourceName names, and every
// class serves `deviceclass.resource.kubernetes.io/<class>`.
//
// As kube-scheduler does, the scheduler makes the claim: each pending
// pod of Shoal asking such a resource gets a ResourceClaim of its own
// (annotated resource.kubernetes.io/extended-resource-claim, owned by the
// pod, one request per container and resource, named as kube-scheduler
// names them) that the ledger allocates with the rest of the gang and the
// bind creates before writing its allocation and the pod's
// status.extendedResourceClaimStatus. A claim a scheduler made already
// for the pod (a bind that failed after creating it) is used instead.
//
// The claim is used only on a node that does not publish the resource
// itself: a node of the device plugin serves it as before. For node
// accounting, a node that serves a resource through devices publishes as
// its allocatable the devices of the class it reaches (so requests fit,
// queues and fair shares count them under the resource's name, and the
// node's room reads true); which devices are free the allocator decides.
#ifndef SHOAL_SCHEDULER_DRA_EXTENDED_RESOURCES_H_
#define SHOAL_SCHEDULER_DRA_EXTENDED_RESOURCES_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "scheduler/api/cluster_info.h"
#include "scheduler/api/devices.h"
#include "scheduler/api/task_info.h"
#include "scheduler/dra/inventory.h"

namespace shoal::dra {

// "deviceclass.resource.kubernetes.io/": the prefix of the resource every
// class serves by its own name.
inline constexpr char kImplicitExtendedResourcePrefix[] =
    "deviceclass.resource.kubernetes.io/";

// The class serving each extended resource name. Two classes naming one
// resource: the first by name serves it (kube-scheduler keeps whichever
// it saw last; a deterministic choice is kinder to replays).
absl::flat_hash_map<std::string, std::string> ExtendedResourceClasses(
    const api::DeviceWorld& world);

// The claim's requests and the pod's request mappings for the resources
// of `classes` the pod asks, as kube-scheduler builds them: a request
// `container-<i>-request-<j>` per container and resource (i among init
// containers then containers, j the resource's position among the
// container's sorted request names); an init container that is no
// sidecar reuses the requests of the long-lived containers after it, and
// such init containers share the largest request they make.
struct ExtendedClaimSpec {
  std::vector<api::DeviceRequest> requests;
  std::vector<api::ContainerRequestMapping> mappings;
};
ExtendedClaimSpec BuildExtendedClaimSpec(
    const api::PodInfo& pod,
    const absl::flat_hash_map<std::string, std::string>& classes);

// "<pod>-extended-resources-xxxxx": kube-scheduler's generated name
// (its base cut to 58 characters), with a suffix drawn from the pod's
// uid so that the name is known before the claim is created.
std::string ExtendedClaimName(const api::PodInfo& pod);

// Before the session's ledger is made: each pending pod asking a resource
// some class serves is given its claim (PodClaim::extended), made here
// (ResourceClaim::to_create) when no scheduler has made one yet; the
// world is copied, sharing its slices, only when a claim is added.
void AddExtendedResourceClaims(api::ClusterInfo& cluster);

// Once the ledger's inventory exists: each node that does not publish a
// resource some task asks and some class serves publishes the devices of
// that class it reaches instead (NodeInfo::ServeThroughDevices), and the
// cluster's total gains them. Returns the resources served so.
std::vector<api::ResourceId> ServeExtendedResourcesOnNodes(
    Inventory& inventory, api::ClusterInfo& cluster);

}  // namespace shoal::dra

#endif  // SHOAL_SCHEDULER_DRA_EXTENDED_RESOURCES_H_
