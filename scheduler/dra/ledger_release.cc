// The ledger's part in making room (ledger.h, "Making room"): what a
// leaving pod's claims give back, and the fit and placement of what waits
// for them.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "scheduler/dra/capacity.h"
#include "scheduler/dra/ledger.h"

namespace shoal::dra {

std::vector<Ledger::SnapshotHold> Ledger::SnapshotHolds(
    const api::ResourceClaim& c) const {
  std::vector<SnapshotHold> out;
  for (const api::DeviceResult& r : c.allocation->results) {
    if (r.admin_access) continue;
    const std::vector<DeviceId>& ids = inv_.Find(r);
    if (ids.empty()) continue;
    // A device that allows multiple allocations but was given without
    // a share id is held whole: it is not shared until it is free.
    const api::Device& device = *inv_.devices()[ids[0]].device;
    out.push_back({ids[0], AmountsOf(r, device),
                   device.allow_multiple_allocations && r.share_id.empty()});
  }
  return out;
}

bool Ledger::OnlyLeavingUse(const api::ResourceClaim& c) const {
  // Only what the status says: a consumer that is not a pod, or a pod not
  // known to be leaving, keeps the claim (and its devices) as it is.
  if (c.reserved_for.empty()) return false;
  for (const api::ClaimConsumer& u : c.reserved_for) {
    if (u.resource != "pods" || u.uid.empty() || !leaving_.contains(u.uid))
      return false;
  }
  auto placed = consumers_.find(&c);
  return placed == consumers_.end() || placed->second.empty();
}

int Ledger::Release(const api::PodInfo& pod) {
  ++leaving_[pod.uid];
  int freed = 0;
  for (const api::ResourceClaim* c : ClaimsOf(pod)) {
    if (c == nullptr || !c->allocation.has_value() || released_.contains(c) ||
        !OnlyLeavingUse(*c)) {
      continue;
    }
    released_.emplace(c, SnapshotHolds(*c));
    released_by_node_[c->allocation->PinnedNode()].push_back(c);
    ++freed;
  }
  return freed;
}

void Ledger::Unrelease(const api::PodInfo& pod) {
  auto it = leaving_.find(pod.uid);
  if (it == leaving_.end()) return;
  if (--it->second == 0) leaving_.erase(it);
  for (const api::ResourceClaim* c : ClaimsOf(pod)) {
    auto r = released_.find(c);
    if (r == released_.end() || OnlyLeavingUse(*c)) continue;
    released_.erase(r);
    auto on = released_by_node_.find(c->allocation->PinnedNode());
    std::vector<const api::ResourceClaim*>& claims = on->second;
    claims.erase(std::find(claims.begin(), claims.end(), c));
    if (claims.empty()) released_by_node_.erase(on);
  }
}

bool Ledger::WaitsForRelease(const api::ResourceClaim& c) const {
  auto it = tentative_.find(&c);
  return it != tentative_.end() && it->second.once_released;
}

void Ledger::LendReleased(const api::NodeInfo& n, bool give) {
  lending_ = give;
  if (released_by_node_.empty()) return;
  // Devices pinned to another node are of no use on `n`; those not
  // pinned to one node are lent whatever their reach (the allocator
  // looks only at what `n` reaches).
  for (absl::string_view node :
       {absl::string_view(n.name()), absl::string_view()}) {
    auto on = released_by_node_.find(node);
    if (on == released_by_node_.end()) continue;
    for (const api::ResourceClaim* c : on->second) {
      for (const SnapshotHold& h : released_.at(c)) {
        if (give) {
          usage_.Give(h.device, h.amounts, h.whole);
        } else {
          usage_.Take(h.device, h.amounts, h.whole);
        }
      }
    }
  }
}

bool Ledger::FitsOnceReleased(const api::PodInfo& pod, const api::NodeInfo& n,
                              std::string* why) {
  LendReleased(n, true);
  const bool fits = Fits(pod, n, why);
  LendReleased(n, false);
  return fits;
}

void Ledger::PlaceOnceReleased(const api::PodInfo& pod,
                               const api::NodeInfo& n) {
  // What Place takes while the released devices are lent stays taken
  // once they are held again: such a device then counts twice, held
  // until the claim gives it back and reserved for the pod after.
  LendReleased(n, true);
  Place(pod, n);
  LendReleased(n, false);
  waiting_.insert(pod.uid);
}

}  // namespace shoal::dra
