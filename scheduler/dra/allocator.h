// Picks devices for a pod's claims on one node, as kube-scheduler's
// structured allocator does: each request's devices come from those the
// node can reach, that no claim holds, and that pass the class's and the
// request's CEL selectors; ExactCount takes `count`, All takes every
// matching one (and fails if any is taken); firstAvailable tries its
// alternatives in order; matchAttribute constraints make the chosen
// devices agree. The search backtracks, bounded, over choices.
#ifndef SHOAL_SCHEDULER_DRA_ALLOCATOR_H_
#define SHOAL_SCHEDULER_DRA_ALLOCATOR_H_

#include <string>
#include <vector>

#include "scheduler/api/devices.h"
#include "scheduler/api/node_info.h"
#include "scheduler/dra/inventory.h"

namespace shoal::dra {

// Enough for every real claim (a few requests of a few devices each);
// a pathological claim fails with a message instead of stalling a cycle.
inline constexpr int kMaxSearchSteps = 100000;
// What one claim's status may list (the API's AllocationResultsMaxSize).
inline constexpr int kMaxDevicesPerClaim = 32;

class Allocator {
 public:
  // `taken[d]` is nonzero for devices some claim holds.
  Allocator(Inventory& inventory, const std::vector<uint8_t>& taken)
      : inv_(inventory), taken_(taken) {}

  // Allocates every claim of `claims` together on `node`: fills `out`
  // (one allocation per claim, same order) and returns true, or returns
  // false with `why` (when not null) saying which request found no
  // device and why, in words for `explain`.
  bool Allocate(const std::vector<const api::ResourceClaim*>& claims,
                const api::NodeInfo& node,
                std::vector<api::DeviceAllocation>* out, std::string* why);

 private:
  struct Slot;  // one request of one claim, during the search
  bool Search(std::vector<Slot>& slots, size_t at, int picked_from);
  bool Pick(std::vector<Slot>& slots, size_t at, size_t from);
  bool Candidates(Slot& slot, const api::NodeInfo& node, std::string* why);
  bool AgreesWithConstraints(const Slot& slot, DeviceId d) const;

  Inventory& inv_;
  const std::vector<uint8_t>& taken_;
  std::vector<uint8_t> picked_;
  int steps_ = 0;
  bool over_limit_ = false;  // the claim's devices exceed its limit
  const api::NodeInfo* node_ = nullptr;
  const std::vector<Slot>* slots_ = nullptr;
  std::string failure_;
};

}  // namespace shoal::dra

#endif  // SHOAL_SCHEDULER_DRA_ALLOCATOR_H_
