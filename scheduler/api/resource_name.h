// Resource names ("cpu", "memory", "nvidia.com/gpu", ...) interned to small
// integers once, so that Resource arithmetic indexes an array instead of
// hashing strings in the scheduler's hot loops.
#ifndef SHOAL_SCHEDULER_API_RESOURCE_NAME_H_
#define SHOAL_SCHEDULER_API_RESOURCE_NAME_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/api/quantity.h"

namespace shoal::api {

using ResourceId = uint16_t;

// Well-known ids, fixed so that code can name them without a lookup.
inline constexpr ResourceId kCpu = 0;
inline constexpr ResourceId kMemory = 1;
inline constexpr ResourceId kPods = 2;
inline constexpr ResourceId kEphemeralStorage = 3;

// How many distinct resource names one process can know. Real clusters use
// a handful; the bound keeps lookups lock-free.
inline constexpr int kMaxResourceNames = 256;

// Returns the id of `name`, registering it on first sight. Thread-safe.
// Fails only when more than kMaxResourceNames names are in use.
absl::StatusOr<ResourceId> InternResourceName(absl::string_view name);

// The name of an id returned by InternResourceName. Lock-free.
absl::string_view ResourceName(ResourceId id);

// kube-scheduler's reason when a node lacks this resource: "Insufficient
// cpu", or "Too many pods" for the pod count. Stable storage, never freed.
absl::string_view InsufficientReason(ResourceId id);

// Whether a node can have a resource of this name, told apart as Volcano's
// scheduler and kube-scheduler do: the native names (cpu, memory, pods,
// ephemeral-storage, hugepages-<size>, attachable-volumes-<kind>) and
// extended resources (a domain-prefixed name such as nvidia.com/gpu).
// ResourceQuota's names are not: count/<kind> (object counts),
// requests.<name> and limits.<name> (its spellings of a request or a
// limit), nor other bare names (storage, services, ...). Volcano's job
// controller writes such names into PodGroup minResources.
bool IsNodeResourceName(absl::string_view name);

// Number of ids handed out so far.
int ResourceNameCount();

// cpu is counted in milli-units, everything else in whole units.
inline QuantityScale ScaleOf(ResourceId id) {
  return id == kCpu ? QuantityScale::kMilli : QuantityScale::kUnit;
}

}  // namespace shoal::api

#endif  // SHOAL_SCHEDULER_API_RESOURCE_NAME_H_
