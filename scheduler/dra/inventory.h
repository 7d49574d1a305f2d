// The devices of one snapshot, flattened for the allocator: every device
// of the newest generation of each pool gets a number, each node the
// list of devices it can reach (its own slices' and the network-attached
// ones whose slice, or with perDeviceNodeSelection the device, selects
// it), each counter of a pool's counter sets a slot, and each CEL
// selector is compiled once.
// Built when a session opens; read-only afterwards except for the memo
// of selector verdicts, which only grows.
#ifndef SHOAL_SCHEDULER_DRA_INVENTORY_H_
#define SHOAL_SCHEDULER_DRA_INVENTORY_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "scheduler/api/devices.h"
#include "scheduler/api/node_info.h"
#include "scheduler/cel/program.h"

namespace shoal::dra {

using DeviceId = int32_t;

struct DeviceEntry {
  const api::ResourceSlice* slice;
  const api::Device* device;
  // The slice offers nothing Shoal refuses (whether its pool is whole is
  // per node: Reach::usable).
  bool usable = true;
  // Some node of the snapshot reaches it.
  bool reached = false;
  // Its taints: the slice's and those of DeviceTaintRules that pick it;
  // `tainted` when one keeps away requests not tolerating it.
  std::vector<const api::DeviceTaint*> taints;
  bool tainted = false;
  // Partitionable devices: the counters of its pool it spends while
  // allocated, as (counter slot, amount in milli-units).
  std::vector<std::pair<int32_t, int64_t>> counters;
  // Its capacities in milli-units, in device->capacity's order, and
  // whether any has a requestPolicy.
  std::vector<int64_t> capacity;
  bool capacity_policy = false;
  // Every entry of the same device (Inventory::Same).
  const std::vector<int32_t>* same = nullptr;
  std::string Key() const {
    return slice->driver + "/" + slice->pool + "/" + device->name;
  }
};

// A compiled selector, or why it cannot be evaluated.
struct Selector {
  std::string source;
  std::optional<cel::Program> program;
  std::string error;  // compile error, with the expression
  // Its row in the inventory's memo of verdicts.
  size_t id = 0;
};

// A device a node can reach, and whether it may be allocated: its pool's
// generation is complete and valid, and its slice is one Shoal reads.
struct Reach {
  DeviceId id;
  bool usable;
};

class Inventory {
 public:
  Inventory(std::shared_ptr<const api::DeviceWorld> world,
            const std::vector<api::NodeInfo>& nodes);

  const api::DeviceWorld& world() const { return *world_; }
  const std::vector<DeviceEntry>& devices() const { return devices_; }
  // Devices a pod on node `n` can reach, in a stable order (the node's own
  // slices first, by slice and device name), usable or not.
  const std::vector<Reach>& Reachable(api::NodeIndex n) const {
    return n < static_cast<int>(reachable_.size()) ? reachable_[n]
                                                   : unreachable_;
  }
  // Every entry of the device "driver/pool/name" (one per generation of
  // its pool that lists it); empty when no slice does.
  const std::vector<DeviceId>& Find(const api::DeviceResult& r) const;
  // The entries that are the same device as `d`.
  const std::vector<DeviceId>& Same(DeviceId d) const;

  // Counter slots: one per counter of a counter set of a pool's
  // generation, holding its total in milli-units.
  const std::vector<int64_t>& counter_totals() const { return counter_totals_; }

  // The selector for an expression, compiled once.
  const Selector& SelectorFor(const std::string& expression);
  // Whether `device` satisfies the selector: true/false, or an error (a
  // CEL runtime error, "no such key", naming the expression). Memoized.
  // Devices that look the same to a selector (driver, attributes,
  // capacity and allowMultipleAllocations alike: the same GPU model on
  // every node) share one verdict, so a selector runs once per kind of
  // device, not once per device.
  absl::StatusOr<bool> Matches(const Selector& s, DeviceId device) {
    // A verdict known already (only a compiled selector has any).
    if (s.id < verdicts_.size() && !verdicts_[s.id].empty()) {
      const uint8_t v = verdicts_[s.id][look_[device]];
      if (v == 1 || v == 2) return v == 2;
    }
    return Evaluate(s, device);
  }

 private:
  // Matches when the verdict is not known yet (or is an error).
  absl::StatusOr<bool> Evaluate(const Selector& s, DeviceId device);

  std::shared_ptr<const api::DeviceWorld> world_;
  std::vector<DeviceEntry> devices_;
  std::vector<int64_t> counter_totals_;
  absl::flat_hash_map<std::string, std::vector<DeviceId>> same_;
  std::vector<std::vector<Reach>> reachable_;
  std::vector<Reach> unreachable_;
  std::vector<DeviceId> none_;
  absl::flat_hash_map<std::string, std::unique_ptr<Selector>> selectors_;
  // Per selector (by Selector::id), per device: 0 unknown, 1 no, 2 yes,
  // 3 error.
  // Per device, its look: devices with one look are one CEL variable.
  std::vector<int32_t> look_;
  std::vector<DeviceId> look_example_;  // a device of each look
  // Per selector (by Selector::id), per look: 0 unknown, 1 no, 2 yes,
  // 3 error.
  std::vector<std::vector<uint8_t>> verdicts_;
  absl::flat_hash_map<const Selector*,
                      absl::flat_hash_map<int32_t, std::string>>
      errors_;  // by selector, by look
};

}  // namespace shoal::dra

#endif  // SHOAL_SCHEDULER_DRA_INVENTORY_H_
