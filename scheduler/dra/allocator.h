// Picks devices for a pod's claims on one node, as kube-scheduler's
// structured allocator does: each request's devices come from those the
// node can reach, that pass the class's and the request's CEL selectors,
// whose taints the request tolerates, and that can still be given: not
// held by a claim (admin access excepted), their shared counters not
// spent, a shared device's capacity not consumed. ExactCount takes
// `count`, All takes every matching one (and fails if any is taken);
// firstAvailable tries its alternatives in order; matchAttribute and
// distinctAttribute constraints make the chosen devices agree or differ
// (a list-typed attribute as the set of its values: match needs a value
// common to all, distinct no value shared by two).
// The search backtracks, bounded, over choices.
#ifndef SHOAL_SCHEDULER_DRA_ALLOCATOR_H_
#define SHOAL_SCHEDULER_DRA_ALLOCATOR_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "scheduler/api/devices.h"
#include "scheduler/api/node_info.h"
#include "scheduler/dra/inventory.h"
#include "scheduler/dra/usage.h"

namespace shoal::dra {

// Enough for every real claim (a few requests of a few devices each);
// a pathological claim fails with a message instead of stalling a cycle.
inline constexpr int kMaxSearchSteps = 100000;
// What one claim's status may list (the API's AllocationResultsMaxSize).
inline constexpr int kMaxDevicesPerClaim = 32;

// What one chosen device holds: the device, what it consumes of each of
// its capacities (a shared device), and whether it is held at all (an
// admin-access result takes nothing from anyone).
struct Hold {
  DeviceId device = 0;
  std::vector<int64_t> amounts;
  bool admin = false;
};

class Allocator {
 public:
  // `usage` says what is held. The search takes from it as it goes and
  // gives everything back before Allocate returns. An allocator may be
  // kept and asked again (the ledger keeps one): it remembers each
  // request's class and selectors by the request's address, so the
  // claims it is given must stay, unchanged, as long as it does (those
  // of the inventory's world do).
  Allocator(Inventory& inventory, Usage& usage);
  ~Allocator();
  Allocator(const Allocator&) = delete;
  Allocator& operator=(const Allocator&) = delete;

  // Allocates every claim of `claims` together on `node`: fills `out`
  // (when not null: one allocation per claim, same order) and returns
  // true, or returns false with `why` (when not null) saying which
  // request found no device and why, in words for `explain`.
  // `holds` (when not null) gets, per claim, what its devices hold.
  bool Allocate(const std::vector<const api::ResourceClaim*>& claims,
                const api::NodeInfo& node,
                std::vector<api::DeviceAllocation>* out, std::string* why,
                std::vector<std::vector<Hold>>* holds = nullptr);

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
  // Whether the choice tolerates every taint that keeps claims away
  // from `d`.
  bool Tolerated(const api::DeviceChoice& c, DeviceId d) const;
  // Gives back what the chosen devices of every slot hold.
  void GiveBack();

  Inventory& inv_;
  Usage& usage_;
  // Per device: the claim that last chose it in this search (admin
  // access may not take a device twice for one claim), with what each
  // mark replaced, so that backtracking restores it.
  std::vector<const api::ResourceClaim*> picked_;
  std::vector<std::pair<DeviceId, const api::ResourceClaim*>> touched_;
  std::vector<int64_t> amounts_;  // scratch
  // Scratch of AgreesWithConstraints: the chosen devices' attributes.
  mutable std::vector<const api::DeviceAttribute*> attributes_;
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
