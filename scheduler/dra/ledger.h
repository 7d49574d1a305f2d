// Which devices a session's placements take. Claims allocated in the
// snapshot (status.allocation, whoever wrote it) hold their devices from
// the start; a pod placed in the session allocates its claims that are
// not allocated yet, and gives them back when its placement is undone,
// so a discarded gang leaves no device taken. A claim several pods share
// is allocated once, by the first, and confines the others to its node.
#ifndef SHOAL_SCHEDULER_DRA_LEDGER_H_
#define SHOAL_SCHEDULER_DRA_LEDGER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "scheduler/api/devices.h"
#include "scheduler/api/node_info.h"
#include "scheduler/api/task_info.h"
#include "scheduler/dra/allocator.h"
#include "scheduler/dra/inventory.h"
#include "scheduler/dra/usage.h"

namespace shoal::dra {

class Ledger {
 public:
  Ledger(std::shared_ptr<const api::DeviceWorld> world,
         const std::vector<api::NodeInfo>& nodes);
  // Its allocator refers to its inventory and devices taken.
  Ledger(const Ledger&) = delete;
  Ledger& operator=(const Ledger&) = delete;

  // Why the pod's claims keep it from being placed on any node (a claim
  // missing, not made from its template yet, being deleted, using a field
  // Shoal does not implement, naming a missing class, or with a selector
  // Shoal cannot compile, or that fails at run time on some device, which
  // kube-scheduler too treats as an error of the pod, not of a node), pod
  // named; "" when they do not. `kube_words` gets the same in
  // kube-scheduler's words when not null (what `explain` shows on every
  // node).
  std::string Refusal(const api::PodInfo& pod,
                      std::string* kube_words = nullptr) const;
  // Whether the pod's claims can all be satisfied on `n` now; `why` says
  // which request found no device and why.
  bool Fits(const api::PodInfo& pod, const api::NodeInfo& n,
            std::string* why = nullptr);
  // The pod is placed on `n` (Fits said yes): its unallocated claims are
  // allocated there.
  void Place(const api::PodInfo& pod, const api::NodeInfo& n);
  // Its placement is undone: claims it alone allocated give their
  // devices back.
  void Unplace(const api::PodInfo& pod);
  // Equal for two pods whose claims ask for devices alike: the claims'
  // requests and constraints, in order, none allocated or shared (a
  // claim's name is in it otherwise, so the pod is alike to none else).
  // `shared`: claims (by key) that more than one pod names.
  std::string Signature(const api::PodInfo& pod,
                        const absl::flat_hash_set<std::string>& shared) const;
  // What binding the placed pod writes to its claims first. Called once
  // per committed pod, in commit order: a claim several pods share is
  // written by the first with all of them (see ledger.cc).
  std::vector<api::ClaimWrite> WritesFor(const api::PodInfo& pod) const;

  // --- Making room (preempt, reclaim). A pod leaving its node (evicted
  // in the session, or Releasing in the snapshot) gives back the devices
  // of each claim it holds that only leaving pods reserve
  // (status.reservedFor) and no pod placed this session uses: whole
  // devices, shares with what they consume, and the counters of both. A
  // claim a staying pod shares keeps them. They are free only for what
  // waits for the victims (FitsOnceReleased, PlaceOnceReleased: a
  // pipelined pod, which writes nothing); for what binds now (Fits,
  // Place) they stay held, since the claim's status holds them until
  // Kubernetes' resourceclaim controller deallocates it, and a device is
  // never given to two claims. Nothing but the snapshot's claims is
  // released: a claim this session allocated belongs to a pod that stays.
  //
  // The pod leaves; returns how many of its claims that freed.
  int Release(const api::PodInfo& pod);
  // Undoes Release (a discarded eviction, the victim search's what-if):
  // its claims hold their devices again. Undone before any pod placed
  // once released is unplaced would double-book them, so statements
  // undo newest first.
  void Unrelease(const api::PodInfo& pod);
  // Fits and Place with the released devices free.
  bool FitsOnceReleased(const api::PodInfo& pod, const api::NodeInfo& n,
                        std::string* why = nullptr);
  void PlaceOnceReleased(const api::PodInfo& pod, const api::NodeInfo& n);
  // Claims released now, for tests.
  int ReleasedCount() const { return static_cast<int>(released_.size()); }

  // Devices held right now (in the snapshot or by this session's
  // placements), for tests and the properties' oracle.
  int TakenCount() const;
  const Inventory& inventory() const { return inv_; }
  // For counting devices by class (device_quota.h), which fills the
  // selectors' memo the allocation reads afterwards.
  Inventory& mutable_inventory() { return inv_; }

 private:
  struct Tentative {
    api::DeviceAllocation allocation;
    std::vector<Hold> holds;
    int users = 0;
    // Made by PlaceOnceReleased: on devices victims still hold.
    bool once_released = false;
  };
  // The claims the pod names, each once; null for one that is missing.
  std::vector<const api::ResourceClaim*> ClaimsOf(
      const api::PodInfo& pod) const;
  // The claim's allocation, in the snapshot or made this session.
  const api::DeviceAllocation* AllocationOf(const api::ResourceClaim& c) const;
  // ClaimsOf, remembered for the last pod asked about (by what the answer
  // depends on: its namespace and claims), as Fits is asked of one pod on
  // node after node.
  const std::vector<const api::ResourceClaim*>& LastClaimsOf(
      const api::PodInfo& pod) const;
  // Splits the pod's claims into those to allocate on `n` and checks the
  // allocated ones may be used from `n`.
  bool Split(const api::PodInfo& pod, const api::NodeInfo& n,
             std::vector<const api::ResourceClaim*>* to_allocate,
             std::string* why) const;

  // What a claim allocated in the snapshot holds (the constructor takes
  // it, Release lends it): admin access holds nothing, and a device that
  // allows multiple allocations given without a share id is held whole.
  struct SnapshotHold {
    DeviceId device = 0;
    std::vector<int64_t> amounts;
    bool whole = false;
  };
  std::vector<SnapshotHold> SnapshotHolds(const api::ResourceClaim& c) const;
  // Whether every consumer of `c` is a leaving pod (and there is one).
  bool OnlyLeavingUse(const api::ResourceClaim& c) const;
  // Gives back (`give`) or takes again what the released claims `n` may
  // use hold: FitsOnceReleased looks between the two.
  void LendReleased(const api::NodeInfo& n, bool give);
  // Whether `c` was allocated this session on devices victims still hold:
  // a pod that binds now may not use it (Split).
  bool WaitsForRelease(const api::ResourceClaim& c) const;

  // Who the pod's use of claim `c` reserves it for: the pod, or its
  // PodGroup when `c` is the group's (group_claims.h).
  api::ClaimConsumer ConsumerOf(const api::PodInfo& pod,
                                const api::ResourceClaim& c) const;

  // Why a claim allocated with devices that have binding conditions
  // keeps its pods from binding: a device not yet reporting one, or
  // reporting a failure condition; "" when every device is ready.
  std::string BindingWait(const api::ResourceClaim& c) const;

  // Why a selector fails on some device of the class ("" when it does
  // not): the class's own selectors when `request_selectors` is empty.
  // Worked out once per class and selectors.
  std::string SelectorError(const api::DeviceClass& cls,
                            const std::vector<std::string>& request_selectors,
                            const std::string& claim_key) const;

  // Mutable: the selectors' memo fills as Refusal and Fits look.
  mutable Inventory inv_;
  mutable absl::flat_hash_map<std::string, std::string> selector_errors_;
  Usage usage_;
  // By the claim in world().claims (one entry per claim key).
  absl::flat_hash_map<const api::ResourceClaim*, Tentative> tentative_;
  // The pods placed this session that use each claim, in placement order.
  absl::flat_hash_map<const api::ResourceClaim*,
                      std::vector<api::ClaimConsumer>>
      consumers_;
  // The reservedFor each claim's write this session carried (WritesFor).
  mutable absl::flat_hash_map<const api::ResourceClaim*,
                              std::vector<api::ClaimConsumer>>
      written_;
  // Release's state: the leaving pods (by uid, how many times), the
  // released claims with what they hold, and those by the node their
  // allocation is pinned to ("": not pinned to one).
  absl::flat_hash_map<std::string, int> leaving_;
  absl::flat_hash_map<const api::ResourceClaim*, std::vector<SnapshotHold>>
      released_;
  absl::flat_hash_map<std::string, std::vector<const api::ResourceClaim*>>
      released_by_node_;
  // While the released devices are lent (LendReleased).
  bool lending_ = false;
  // Pods placed once released (by uid): not reserved in a claim's write
  // until they bind themselves.
  absl::flat_hash_set<std::string> waiting_;
  // Kept between calls, with the room of its vectors.
  Allocator allocator_;
  // Fits' claims to allocate, kept to spare an allocation per call.
  std::vector<const api::ResourceClaim*> to_allocate_;
  // "ns/name" of the claim being looked up, kept to spare an allocation.
  mutable std::string claim_key_;
  // LastClaimsOf's pod and answer.
  mutable bool last_known_ = false;
  mutable std::string last_ns_;
  mutable std::vector<api::PodClaim> last_pod_claims_;
  mutable std::vector<const api::ResourceClaim*> last_claims_;
};

}  // namespace shoal::dra

#endif  // SHOAL_SCHEDULER_DRA_LEDGER_H_
