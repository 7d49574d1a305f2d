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
#include "scheduler/api/resource_name.h"

namespace shoal::api {

// A device attribute's value: exactly one of bool, int, string, version
// (a semantic version, kept as written); or, `list` (resource.k8s.io's
// list-typed attributes, DRAListTypeAttributes, KEP-5491: bools, ints,
// strings, versions), a non-empty list of values of one kind, held in
// `bools`, `ints` or `strings` (versions too) with the scalar fields
// unused. Constraints take either as the set of its values: a scalar is
// a set of one.
struct DeviceAttribute {
  enum class Kind { kBool, kInt, kString, kVersion };
  Kind kind = Kind::kString;
  bool b = false;
  int64_t i = 0;
  std::string s;  // string or version
  bool list = false;
  std::vector<bool> bools;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;  // strings or versions
  bool operator==(const DeviceAttribute& o) const {
    return kind == o.kind && b == o.b && i == o.i && s == o.s &&
           list == o.list && bools == o.bools && ints == o.ints &&
           strings == o.strings;
  }
  // How many values it holds (1 for a scalar).
  size_t size() const {
    if (!list) return 1;
    switch (kind) {
      case Kind::kBool:
        return bools.size();
      case Kind::kInt:
        return ints.size();
      default:
        return strings.size();
    }
  }
  // Value `k` (k < size()) is value `j` of `o`, an attribute of its kind.
  // Versions compare as written: semver 2.0.0 keeps them minimal, as
  // kube-scheduler's allocator compares them.
  bool SameValue(size_t k, const DeviceAttribute& o, size_t j) const {
    switch (kind) {
      case Kind::kBool:
        return (list ? bools[k] : b) == (o.list ? o.bools[j] : o.b);
      case Kind::kInt:
        return (list ? ints[k] : i) == (o.list ? o.ints[j] : o.i);
      default:
        return (list ? strings[k] : s) == (o.list ? o.strings[j] : o.s);
    }
  }
  // It holds value `j` of `o`: the two are of one kind, and that value
  // is among its own.
  bool Holds(const DeviceAttribute& o, size_t j) const {
    if (kind != o.kind) return false;
    for (size_t k = 0; k < size(); ++k) {
      if (SameValue(k, o, j)) return true;
    }
    return false;
  }
  // The two share a value (attributes of different kinds share none).
  bool Overlaps(const DeviceAttribute& o) const {
    for (size_t j = 0; j < o.size(); ++j) {
      if (Holds(o, j)) return true;
    }
    return false;
  }
};

// A device's taint (resource.k8s.io DeviceTaint): a device tainted
// NoSchedule or NoExecute goes only to requests that tolerate it; None
// only informs.
struct DeviceTaint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, NoExecute, None
  std::string time_added;
  bool operator==(const DeviceTaint& o) const {
    return key == o.key && value == o.value && effect == o.effect &&
           time_added == o.time_added;
  }
};

// A request's toleration of device taints, as a pod's of node taints.
struct DeviceToleration {
  std::string key;
  std::string op = "Equal";  // Equal or Exists
  std::string value;
  std::string effect;  // "" tolerates every effect
  std::optional<int64_t> toleration_seconds;
  bool operator==(const DeviceToleration& o) const {
    return key == o.key && op == o.op && value == o.value &&
           effect == o.effect && toleration_seconds == o.toleration_seconds;
  }
  bool Tolerates(const DeviceTaint& t) const {
    if (!effect.empty() && effect != t.effect) return false;
    if (key.empty()) return op == "Exists";
    if (key != t.key) return false;
    return op == "Exists" || value == t.value;
  }
};

// capacity[].requestPolicy: how much of a shared device's capacity one
// allocation takes (quantity texts, as written).
struct CapacityPolicy {
  std::optional<std::string> default_value;
  std::vector<std::string> valid_values;      // ascending
  std::optional<std::string> min, max, step;  // validRange
};

// One entry of a device's capacity. `name` is fully qualified;
// `written` is the key as the slice wrote it (status keys follow it).
struct DeviceCapacity {
  std::string name;
  std::string value;  // quantity text
  std::string written;
  std::optional<CapacityPolicy> policy;
};

// A named amount of a counter (sharedCounters, consumesCounters).
struct CounterAmount {
  std::string name;
  std::string value;  // quantity text
};

// spec.sharedCounters[]: what partitions of one physical device share.
struct CounterSet {
  std::string name;
  std::vector<CounterAmount> counters;
};

// devices[].consumesCounters[]: what a device takes from a counter set
// of its pool while it is allocated.
struct CounterConsumption {
  std::string counter_set;
  std::vector<CounterAmount> counters;
};

// One device of a slice. Attribute and capacity names are fully
// qualified ("gpu.example.com/model"): a name written without a domain
// belongs to the driver, as the API says.
struct Device {
  std::string name;
  std::vector<std::pair<std::string, DeviceAttribute>> attributes;
  std::vector<DeviceCapacity> capacity;
  // Partitionable devices: the counters this device spends.
  std::vector<CounterConsumption> consumes_counters;
  // Where the device is reachable from, when its slice says
  // perDeviceNodeSelection (exactly one of the three).
  std::string node_name;
  std::optional<std::vector<NodeSelectorTerm>> node_selector;
  bool all_nodes = false;
  std::vector<DeviceTaint> taints;
  // Consumable capacity: several claims may share the device, each
  // taking part of its capacity.
  bool allow_multiple_allocations = false;
  // Binding conditions: the pod binds only once the device reports
  // each of `binding_conditions` true in the claim's status.
  bool binds_to_node = false;
  std::vector<std::string> binding_conditions;
  std::vector<std::string> binding_failure_conditions;
  // The capacity entry of that fully qualified name, or null.
  const DeviceCapacity* Capacity(const std::string& qualified) const {
    for (const DeviceCapacity& c : capacity)
      if (c.name == qualified) return &c;
    return nullptr;
  }
};

// resource.k8s.io ResourceSlice: devices of one pool of one driver, local
// to a node (spec.nodeName), reachable from the nodes a selector picks,
// or from every node; with perDeviceNodeSelection, each device says.
struct ResourceSlice {
  std::string name;
  std::string driver;
  std::string pool;
  int64_t generation = 0;
  int64_t slice_count = 1;  // spec.pool.resourceSliceCount
  std::string node_name;
  bool all_nodes = false;
  bool per_device_node_selection = false;
  std::optional<std::vector<NodeSelectorTerm>> node_selector;
  std::vector<Device> devices;
  // Counter sets of the pool (since 1.35 in a slice with no devices).
  std::vector<CounterSet> shared_counters;
  // A field Shoal does not implement: the slice's devices are not
  // offered, and a claim that finds no other device says so.
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
  // adminAccess: devices in use may be given too (monitoring); the
  // allocation takes nothing from anyone.
  bool admin_access = false;
  std::vector<DeviceToleration> tolerations;
  // capacity.requests: (name as written, quantity text).
  std::vector<std::pair<std::string, std::string>> capacity_requests;
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
// With `distinct_attribute` instead, they all differ in it.
struct DeviceConstraint {
  std::vector<std::string> requests;
  std::string match_attribute;     // fully qualified, or ""
  std::string distinct_attribute;  // fully qualified, or ""
};

struct DeviceResult {
  std::string request;  // "gpu", or "gpu/big" for a firstAvailable choice
  std::string driver;
  std::string pool;
  std::string device;
  bool admin_access = false;
  std::vector<DeviceToleration> tolerations;
  std::vector<std::string> binding_conditions;
  std::vector<std::string> binding_failure_conditions;
  // A share of a device that allows multiple allocations: its id and
  // what it consumes (capacity key as the slice wrote it, quantity).
  std::string share_id;
  std::vector<std::pair<std::string, std::string>> consumed_capacity;
  bool operator==(const DeviceResult& o) const {
    return request == o.request && driver == o.driver && pool == o.pool &&
           device == o.device && admin_access == o.admin_access &&
           share_id == o.share_id && consumed_capacity == o.consumed_capacity;
  }
};

// status.allocation. `node` names the node the devices are local to
// ("" for devices reachable from more than one node, whose slice's
// selector is kept in `node_selector`; neither when from every node).
struct DeviceAllocation {
  std::vector<DeviceResult> results;
  // Some device must report its binding conditions before a pod using
  // the allocation may bind (KEP-5007).
  bool WaitsForDevices() const {
    for (const DeviceResult& r : results)
      if (!r.binding_conditions.empty()) return true;
    return false;
  }
  // status.allocation.devices.config, JSON text per entry, as written.
  std::vector<std::string> config;
  std::string node;
  std::optional<std::vector<NodeSelectorTerm>> node_selector;
  // status.allocation.allocationTimestamp (RFC 3339, as written), ""
  // when absent: when devices with binding conditions were allocated.
  std::string allocated_at;
  bool operator==(const DeviceAllocation& o) const {
    return results == o.results && config == o.config && node == o.node &&
           node_selector == o.node_selector && allocated_at == o.allocated_at;
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
  // "" for the core group (pods); "scheduling.k8s.io" for a PodGroup.
  std::string api_group;
  bool operator==(const ClaimConsumer& o) const {
    return resource == o.resource && name == o.name && uid == o.uid &&
           api_group == o.api_group;
  }
};

// status.devices[]: what a driver reports of one allocated device; the
// conditions a device's bindingConditions name are read here.
struct DeviceStatus {
  std::string driver;
  std::string pool;
  std::string device;
  std::string share_id;
  // (type, status) of each condition, status "True", "False", "Unknown".
  std::vector<std::pair<std::string, std::string>> conditions;
  bool Reports(const std::string& type) const {
    for (const auto& [t, status] : conditions)
      if (t == type) return status == "True";
    return false;
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
  std::vector<DeviceStatus> device_statuses;
  bool deleting = false;
  // The pod the resourceclaim controller made it for (ownerReference uid),
  // or "".
  std::string owner_uid;
  // Annotated resource.kubernetes.io/extended-resource-claim: "true": the
  // claim a scheduler made for the pod `owner_uid` names, serving its
  // extended resources through devices (KEP-5004).
  bool extended_resources = false;
  // Made by Shoal this session for such a pod and not created yet: its
  // bind creates it first (ClaimWrite::create).
  bool to_create = false;
  // Its owner pod's name (`to_create` only: the ownerReference written).
  std::string owner_name;
  // The first field of the claim that Shoal does not implement
  // ("spec.devices.requests[0].exactly.adminAccess"): its pods wait,
  // naming it.
  std::string unsupported_field;

  std::string Key() const { return ns + "/" + name; }
  // What the driver reports (status.devices) of the device result `r`
  // names, or null; the last entry for it when it is listed twice.
  const DeviceStatus* StatusOf(const DeviceResult& r) const {
    const DeviceStatus* out = nullptr;
    for (const DeviceStatus& s : device_statuses) {
      if (s.driver == r.driver && s.pool == r.pool && s.device == r.device &&
          s.share_id == r.share_id) {
        out = &s;
      }
    }
    return out;
  }
};

// A pod's spec.resourceClaims[] entry, resolved to the claim's name: the
// resourceClaimName, or for a template the claim the resourceclaim
// controller made (pod status.resourceClaimStatuses), "" until it has.
struct PodClaim {
  std::string name;
  std::string claim;
  std::string template_name;
  // The claim serving the pod's extended resources through devices
  // (KEP-5004), not in spec.resourceClaims: used only on a node that does
  // not publish those resources itself (NodeSpec::served_by_devices).
  bool extended = false;
  // The extended resources it serves (by resource id), when `extended`.
  std::vector<ResourceId> serves;
  // The claim of the pod's PodGroup (KEP-5729), reserved for the group
  // (this consumer) rather than for the pod; empty name otherwise.
  ClaimConsumer group;
  bool operator==(const PodClaim& o) const {
    return name == o.name && claim == o.claim &&
           template_name == o.template_name && extended == o.extended &&
           serves == o.serves && group == o.group;
  }
};

// One container's extended resource, mapped to the request of the claim
// that serves it (pod status.extendedResourceClaimStatus.requestMappings).
struct ContainerRequestMapping {
  std::string container;
  std::string resource;
  std::string request;
  bool operator==(const ContainerRequestMapping& o) const {
    return container == o.container && resource == o.resource &&
           request == o.request;
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
  // The claim to create before the write (Shoal's claim for a pod's
  // extended resources, KEP-5004), or null; and what the pod's
  // status.extendedResourceClaimStatus is set to once it is written.
  std::shared_ptr<const ResourceClaim> create;
  std::vector<ContainerRequestMapping> mappings;
  std::string Key() const { return ns + "/" + name; }
};

// resource.k8s.io DeviceTaintRule: an administrator's taint on the
// devices its selector picks (driver, pool, device: each "" for any), as
// if their driver had written it in the slice.
struct DeviceTaintRule {
  std::string name;
  std::string driver;
  std::string pool;
  std::string device;
  // Its selector also names a class or CEL selectors, which Shoal does
  // not evaluate: the taint is applied to every device the rest picks
  // (more devices kept from claims, never fewer).
  bool broadened = false;
  DeviceTaint taint;
  bool Picks(const std::string& d, const std::string& p,
             const std::string& n) const {
    return (driver.empty() || driver == d) && (pool.empty() || pool == p) &&
           (device.empty() || device == n);
  }
};

// Everything DRA in one snapshot, shared between sessions.
struct DeviceWorld {
  // Shared (never null): a session that adds claims of its own to the
  // world copies the rest, not the slices (dra/extended_resources.h).
  std::shared_ptr<const std::vector<ResourceSlice>> slices =
      std::make_shared<const std::vector<ResourceSlice>>();
  std::vector<DeviceTaintRule> taint_rules;
  absl::flat_hash_map<std::string, DeviceClass> classes;
  absl::flat_hash_map<std::string, ResourceClaim> claims;  // by ns/name
  bool empty() const {
    return slices->empty() && classes.empty() && claims.empty() &&
           taint_rules.empty();
  }
};

}  // namespace shoal::api

#endif  // SHOAL_SCHEDULER_API_DEVICES_H_
