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

#include "absl/container/flat_hash_map.h"
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
  // `taken[d]` is nonzero for devices some claim holds. An allocator may
  // be kept and asked again (the ledger keeps one): it remembers each
  // request's class and selectors by the request's address, so the
  // claims it is given must stay, unchanged, as long as it does (those
  // of the inventory's world do).
  Allocator(Inventory& inventory, const std::vector<uint8_t>& taken);
  ~Allocator();
  Allocator(const Allocator&) = delete;
  Allocator& operator=(const Allocator&) = delete;

  // Allocates every claim of `claims` together on `node`: fills `out`
  // (when not null: one allocation per claim, same order) and returns
  // true, or returns false with `why` (when not null) saying which
  // request found no device and why, in words for `explain`.
  bool Allocate(const std::vector<const api::ResourceClaim*>& claims,
                const api::NodeInfo& node,
                std::vector<api::DeviceAllocation>* out, std::string* why);

 private:
  struct Slot;  // one request of one claim, during the search
  // A request alternative's class (null when it does not exist) and
  // selectors, the class's first.
  struct Resolved {
    const api::DeviceClass* cls = nullptr;
    std::vector<const Selector*> selectors;
  };
  const Resolved& Resolve(const api::DeviceChoice& c);
  bool Search(size_t at);
  bool Pick(size_t at, size_t from);
  bool Candidates(Slot& slot, std::string* why);
  bool AgreesWithConstraints(const Slot& slot, DeviceId d) const;
  // Zeroes every mark of picked_ set since the last call.
  void ClearPicked();

  Inventory& inv_;
  const std::vector<uint8_t>& taken_;
  // Devices chosen so far in this search, and which were marked (so that
  // clearing costs what was marked, not the inventory's size).
  std::vector<uint8_t> picked_;
  std::vector<DeviceId> touched_;
  // The search's slots are the first slot_count_; the rest keep their
  // vectors' room for the next call.
  std::vector<Slot> slots_;
  size_t slot_count_ = 0;
  absl::flat_hash_map<const api::DeviceChoice*, Resolved> resolved_;
  int steps_ = 0;
  bool over_limit_ = false;  // the claim's devices exceed its limit
  bool cel_error_ = false;   // a selector failed to evaluate (Candidates)
  bool quiet_ = false;       // no words wanted: failures are not described
  const api::NodeInfo* node_ = nullptr;
  std::string failure_;
};

}  // namespace shoal::dra

#endif  // SHOAL_SCHEDULER_DRA_ALLOCATOR_H_
