// Allocations Shoal made that can no longer be used, to be undone so the
// pods waiting on them are scheduled again (kube-scheduler's Unreserve
// after a failed PreBind does the same):
//   * devices with binding conditions (KEP-5007) that report a binding
//     failure condition, or have not reported every binding condition
//     `kBindingTimeout` after the allocation (its allocationTimestamp);
//   * a claim serving a pod's extended resources (KEP-5004) allocated to
//     devices of a node that is gone (a bind failed after the claim was
//     written, and the node went away): the pod could never be placed.
// Only a claim every consumer of which is a pending pod of Shoal (or
// none) is deallocated: a pod running or bound on the devices keeps them.
#ifndef SHOAL_SCHEDULER_DRA_STALE_ALLOCATIONS_H_
#define SHOAL_SCHEDULER_DRA_STALE_ALLOCATIONS_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "scheduler/api/cluster_info.h"
#include "scheduler/api/devices.h"

namespace shoal::dra {

// kube-scheduler's default (BindingTimeoutDefaultSeconds).
inline constexpr absl::Duration kBindingTimeout = absl::Seconds(600);

struct Deallocation {
  // The claim as it is to be: no allocation, reserved for nobody, no
  // device status (its resourceVersion the one the snapshot saw).
  api::ResourceClaim after;
  std::string reason;  // the sentence Events and logs carry
  // The pending pods it was reserved for (ns/name).
  std::vector<std::string> pods;
};

// The claims of `cluster.devices` to deallocate at `now`, by key.
std::vector<Deallocation> StaleAllocations(const api::ClusterInfo& cluster,
                                           absl::Time now);

}  // namespace shoal::dra

#endif  // SHOAL_SCHEDULER_DRA_STALE_ALLOCATIONS_H_
