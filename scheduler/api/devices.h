// Dynamic Resource Allocation (resource.k8s.io) as the cluster model holds
// it: the devices drivers publish in ResourceSlices, the DeviceClasses
// that select them, and the ResourceClaims pods ask through. The
// allocator (scheduler/dra/) reads these; the session's ledger records
// which devices a cycle's placements take, so a discarded gang gives its
// devices back as it gives back its nodes.
#ifndef SHOAL_SCHEDULER_API_DEVICES_H_
#define SHOAL_SCHEDULER_API_DEVICES_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "scheduler/api/placement.h"

namespace shoal::api {

// A device attribute's value: exactly one of bool, int, string, version
// (a semantic version, kept as written).
struct DeviceAttribute {
  enum class Kind { kBool, kInt, kString, kVersion };
  Kind kind = Kind::kString;
  bool b = false;
  int64_t i = 0;
  std::string s;  // string or version
  bool operator==(const DeviceAttribute& o) const {
    return kind == o.kind && b == o.b && i == o.i && s == o.s;
  }
};

// One device of a slice. Attribute and capacity names are fully
// qualified ("gpu.example.com/model"): a name written without a domain
// belongs to the slice's driver, as the API says.
struct Device {
  std::string name;
  std::vector<std::pair<std::string, DeviceAttribute>> attributes;
  std::vector<std::pair<std::string, std::string>> capacity;  // quantity text
};

// resource.k8s.io ResourceSlice: devices of one pool of one driver, local
// to a node (spec.nodeName), reachable from the nodes a selector picks,
// or from every node.
struct ResourceSlice {
  std::string name;
  std::string driver;
  std::string pool;
  int64_t generation = 0;
  int64_t slice_count = 1;  // spec.pool.resourceSliceCount
  std::string node_name;
  bool all_nodes = false;
  std::optional<std::vector<NodeSelectorTerm>> node_selector;
  std::vector<Device> devices;
  // A field Shoal does not implement (partitionable devices, taints,
  // consumable capacity): the slice's devices are not offered, and a
  // claim that finds no other device says so.
  std::string unsupported_field;
};

struct DeviceClass {
  std::string name;
  std::vector<std::string> selectors;  // CEL expressions, all must hold
  // spec.config, as JSON text per entry: copied into allocations.
  std::vector<std::string> config;
  // spec.extendedResourceName: the extended resource ("nvidia.com/gpu")
  // the class's devices also serve. Queues count the class's devices
  // under this name too, so one quota holds GPUs counted either way.
  std::string extended_resource_name;
  std::string unsupported_field;
};

enum class AllocationMode { kExactCount, kAll };

// One way of satisfying a request: a class, selectors and an amount.
struct DeviceChoice {
  std::string name;  // the request's name, or the subrequest's
  std::string device_class;
  std::vector<std::string> selectors;
  AllocationMode mode = AllocationMode::kExactCount;
  int64_t count = 1;
};

// A request: `exactly` one choice, or `firstAvailable` alternatives in
// order of preference.
struct DeviceRequest {
  std::string name;
  std::vector<DeviceChoice> choices;
  bool first_available = false;
};

// spec.devices.constraints[]: the devices of `requests` (every request
// when empty) agree on the attribute.
struct DeviceConstraint {
  std::vector<std::string> requests;
  std::string match_attribute;  // fully qualified
};

struct DeviceResult {
  std::string request;  // "gpu", or "gpu/big" for a firstAvailable choice
  std::string driver;
  std::string pool;
  std::string device;
  bool operator==(const DeviceResult& o) const {
    return request == o.request && driver == o.driver && pool == o.pool &&
           device == o.device;
  }
};

// status.allocation. `node` names the node the devices are local to
// ("" for devices reachable from more than one node, whose slice's
// selector is kept in `node_selector`; neither when from every node).
struct DeviceAllocation {
  std::vector<DeviceResult> results;
  // status.allocation.devices.config, JSON text per entry, as written.
  std::vector<std::string> config;
  std::string node;
  std::optional<std::vector<NodeSelectorTerm>> node_selector;
  bool operator==(const DeviceAllocation& o) const {
    return results == o.results && config == o.config && node == o.node &&
           node_selector == o.node_selector;
  }
  // The one node the allocation may be used from, when its selector
  // names one by metadata.name; "" otherwise.
  std::string PinnedNode() const {
    if (!node.empty() || !node_selector.has_value()) return node;
    if (node_selector->size() != 1) return "";
    for (const NodeSelectorRequirement& r : (*node_selector)[0].match_fields) {
      if (r.key == "metadata.name" && r.op == SelectorOperator::kIn &&
          r.values.size() == 1) {
        return r.values[0];
      }
    }
    return "";
  }
};

// A consumer in status.reservedFor (pods, as Shoal writes them).
struct ClaimConsumer {
  std::string resource = "pods";
  std::string name;
  std::string uid;
  bool operator==(const ClaimConsumer& o) const {
    return resource == o.resource && name == o.name && uid == o.uid;
  }
};

struct ResourceClaim {
  std::string ns;
  std::string name;
  std::string uid;
  std::string resource_version;
  std::string api_version = "resource.k8s.io/v1";
  std::vector<DeviceRequest> requests;
  std::vector<DeviceConstraint> constraints;
  // spec.devices.config, JSON text per entry (with its `requests`).
  std::vector<std::string> config;
  std::optional<DeviceAllocation> allocation;
  std::vector<ClaimConsumer> reserved_for;
  bool deleting = false;
  // The pod the resourceclaim controller made it for (ownerReference uid),
  // or "".
  std::string owner_uid;
  // The first field of the claim that Shoal does not implement
  // ("spec.devices.requests[0].exactly.adminAccess"): its pods wait,
  // naming it.
  std::string unsupported_field;

  std::string Key() const { return ns + "/" + name; }
};

// A pod's spec.resourceClaims[] entry, resolved to the claim's name: the
// resourceClaimName, or for a template the claim the resourceclaim
// controller made (pod status.resourceClaimStatuses), "" until it has.
struct PodClaim {
  std::string name;
  std::string claim;
  std::string template_name;
  bool operator==(const PodClaim& o) const {
    return name == o.name && claim == o.claim &&
           template_name == o.template_name;
  }
};

// What binding a pod writes to one of its claims first (kube-scheduler's
// PreBind): the allocation, when this cycle made it, and the pod added
// to status.reservedFor.
struct ClaimWrite {
  std::string ns;
  std::string name;
  std::string uid;
  std::string resource_version;
  std::string api_version;
  DeviceAllocation allocation;
  bool newly_allocated = false;
  ClaimConsumer consumer;
  // status.reservedFor as written: those there already, then `consumer`
  // (and other pods of this cycle that share the claim).
  std::vector<ClaimConsumer> reserved_for;
  // The claim is written this cycle for another pod first (the first of
  // those that share it): this write waits for that one's allocation to
  // be there, then sets reservedFor to `reserved_for`.
  bool follows = false;
  std::string Key() const { return ns + "/" + name; }
};

// Everything DRA in one snapshot, shared between sessions.
struct DeviceWorld {
  std::vector<ResourceSlice> slices;
  absl::flat_hash_map<std::string, DeviceClass> classes;
  absl::flat_hash_map<std::string, ResourceClaim> claims;  // by ns/name
  bool empty() const {
    return slices.empty() && classes.empty() && claims.empty();
  }
};

}  // namespace shoal::api

#endif  // SHOAL_SCHEDULER_API_DEVICES_H_
