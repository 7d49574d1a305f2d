#include "scheduler/dra/stale_allocations.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace shoal::dra {
namespace {

// Why the claim's devices will never let its pods bind, or "".
std::string BindingFailed(const api::ResourceClaim& c, absl::Time now) {
  bool ready = true;
  for (const api::DeviceResult& r : c.allocation->results) {
    if (r.binding_conditions.empty()) continue;
    const api::DeviceStatus* s = c.StatusOf(r);
    const std::string device =
        absl::StrCat(r.driver, "/", r.pool, "/", r.device);
    for (const std::string& f : r.binding_failure_conditions) {
      if (s != nullptr && s->Reports(f)) {
        return absl::StrCat("device ", device,
                            " reports binding failure condition ", f);
      }
    }
    for (const std::string& b : r.binding_conditions)
      ready = ready && s != nullptr && s->Reports(b);
  }
  if (ready || c.allocation->allocated_at.empty()) return "";
  absl::Time at;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, c.allocation->allocated_at, &at,
                       &error) ||
      now - at <= kBindingTimeout) {
    return "";
  }
  return absl::StrCat(
      "its devices did not report their binding conditions "
      "within ",
      absl::FormatDuration(kBindingTimeout), " of the allocation (",
      c.allocation->allocated_at, ")");
}

}  // namespace

std::vector<Deallocation> StaleAllocations(const api::ClusterInfo& cluster,
                                           absl::Time now) {
  std::vector<Deallocation> out;
  if (cluster.devices == nullptr) return out;
  // Claims a pending pod of Shoal names, with those pods.
  absl::flat_hash_map<std::string, std::vector<const api::PodInfo*>> named;
  absl::flat_hash_map<std::string, const api::PodInfo*> pending_by_uid;
  for (const api::TaskInfo& t : cluster.tasks) {
    if (t.status != api::TaskStatus::kPending) continue;
    pending_by_uid[t.pod->uid] = t.pod.get();
    for (const api::PodClaim& pc : t.pod->resource_claims) {
      if (!pc.claim.empty())
        named[absl::StrCat(t.pod->ns, "/", pc.claim)].push_back(t.pod.get());
    }
  }
  for (const auto& [key, pods] : named) {
    auto it = cluster.devices->claims.find(key);
    if (it == cluster.devices->claims.end()) continue;
    const api::ResourceClaim& c = it->second;
    if (!c.allocation.has_value() || c.deleting) continue;
    std::string why = BindingFailed(c, now);
    if (why.empty() && c.extended_resources) {
      const std::string node = c.allocation->PinnedNode();
      if (!node.empty() && cluster.FindNode(node) == api::kNone)
        why = absl::StrCat("its devices are on node ", node,
                           ", which no longer exists");
    }
    if (why.empty()) continue;
    // Only pending pods of Shoal use it: nothing running loses a device.
    bool only_pending = true;
    for (const api::ClaimConsumer& r : c.reserved_for) {
      only_pending = only_pending && r.resource == "pods" &&
                     pending_by_uid.contains(r.uid);
    }
    if (!only_pending) continue;
    Deallocation d;
    d.after = c;
    d.after.allocation.reset();
    d.after.reserved_for.clear();
    d.after.device_statuses.clear();
    d.reason = absl::StrCat("resourceclaim ", c.Key(), " is deallocated: ", why,
                            "; its pods are scheduled again");
    for (const api::PodInfo* p : pods) d.pods.push_back(p->Key());
    out.push_back(std::move(d));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.after.Key() < b.after.Key();
  });
  return out;
}

}  // namespace shoal::dra
