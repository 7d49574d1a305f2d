#include "scheduler/admin/device_views.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/api/placement.h"
#include "scheduler/dra/capacity.h"

namespace shoal::admin {
namespace {

// Whether a network-attached slice (or, per device, one of its devices)
// selects `node`.
bool SliceReaches(const api::ResourceSlice& s, const api::NodeInfo& node) {
  auto reaches =
      [&](const std::string& name, bool all,
          const std::optional<std::vector<api::NodeSelectorTerm>>& selector) {
        if (!name.empty()) return name == node.name();
        if (all) return true;
        if (!selector.has_value()) return false;
        for (const api::NodeSelectorTerm& t : *selector) {
          if (api::MatchesTerm(t, node.spec().labels, node.name())) return true;
        }
        return false;
      };
  if (!s.per_device_node_selection)
    return reaches(s.node_name, s.all_nodes, s.node_selector);
  for (const api::Device& d : s.devices) {
    if (reaches(d.node_name, d.all_nodes, d.node_selector)) return true;
  }
  return false;
}

v1::AmountUse ToProto(const dra::AmountUse& u) {
  v1::AmountUse out;
  out.set_name(u.name);
  out.set_used(dra::QuantityText(u.used));
  out.set_total(dra::QuantityText(u.total));
  return out;
}

// The pools of the report `node` reaches (all of them for null).
std::vector<const dra::PoolView*> PoolsFor(const dra::DeviceReport& report,
                                           const api::DeviceWorld& world,
                                           const api::NodeInfo* node) {
  std::vector<const dra::PoolView*> out;
  for (const dra::PoolView& p : report.pools) {
    if (node != nullptr) {
      if (!p.node.empty() && p.node != node->name()) continue;
      if (p.node.empty()) {
        bool reached = false;
        for (const api::ResourceSlice& s : *world.slices) {
          if (s.driver == p.driver && s.pool == p.pool &&
              s.generation == p.generation && s.node_name.empty() &&
              SliceReaches(s, *node)) {
            reached = true;
          }
        }
        if (!reached) continue;
      }
    }
    out.push_back(&p);
  }
  return out;
}

std::string UsesText(const std::vector<dra::AmountUse>& uses) {
  std::vector<std::string> parts;
  for (const dra::AmountUse& u : uses)
    parts.push_back(absl::StrCat(u.name, " ", dra::UseText(u)));
  return absl::StrJoin(parts, ", ");
}

// What the devices a node reaches hold, in brief: shared devices and
// what their shares consume, counter sets partitions spend, devices
// held whole, tainted ones.
std::vector<std::string> DeviceNotes(
    const std::vector<const dra::PoolView*>& pools) {
  std::vector<std::string> notes;
  for (const dra::PoolView* p : pools) {
    int whole = 0;
    std::vector<std::string> tainted;
    for (const dra::DeviceView& d : p->devices) {
      if (!d.holders.empty()) ++whole;
      if (d.shareable && !d.capacity.empty() && d.holders.empty()) {
        notes.push_back(
            absl::StrCat(d.name, " shared by ", d.sharers.size(),
                         d.sharers.size() == 1 ? " claim: " : " claims: ",
                         UsesText(d.capacity)));
      }
      std::vector<std::string> taints;
      for (const dra::TaintView& t : d.taints) {
        if (t.taint.effect == "None") continue;
        taints.push_back(absl::StrCat(
            t.Text(), t.rule.empty()
                          ? ""
                          : absl::StrCat(" (DeviceTaintRule ", t.rule, ")")));
      }
      if (!taints.empty()) {
        tainted.push_back(
            absl::StrCat(d.name, " tainted ", absl::StrJoin(taints, ", ")));
      }
    }
    for (const dra::CounterSetView& cs : p->counter_sets) {
      notes.push_back(
          absl::StrCat("counters ", cs.name, ": ", UsesText(cs.counters)));
    }
    if (whole > 0) {
      notes.push_back(absl::StrCat(whole, whole == 1 ? " device" : " devices",
                                   " of pool ", p->driver, "/", p->pool,
                                   " allocated whole"));
    }
    notes.insert(notes.end(), tainted.begin(), tainted.end());
  }
  return notes;
}

// One line per claim the pod names: what it holds, or what it asks.
std::vector<std::string> ClaimLines(const api::DeviceWorld& world,
                                    const dra::DeviceReport& report,
                                    const api::PodInfo& pod) {
  std::vector<std::string> out;
  for (const api::PodClaim& pc : pod.resource_claims) {
    if (pc.claim.empty()) {
      out.push_back(absl::StrCat(pc.name, ": not made from template ",
                                 pc.template_name, " yet"));
      continue;
    }
    const std::string key = absl::StrCat(pod.ns, "/", pc.claim);
    auto it = world.claims.find(key);
    if (it == world.claims.end()) {
      out.push_back(absl::StrCat(key, ": missing"));
      continue;
    }
    const api::ResourceClaim& c = it->second;
    if (c.allocation.has_value()) {
      std::vector<std::string> devices, waits;
      for (const api::DeviceResult& r : c.allocation->results) {
        std::string d = absl::StrCat(r.driver, "/", r.pool, "/", r.device);
        if (!r.share_id.empty()) {
          std::vector<std::string> amounts;
          for (const auto& [name, q] : r.consumed_capacity)
            amounts.push_back(absl::StrCat(name, " ", q));
          absl::StrAppend(&d, " (a share", amounts.empty() ? "" : ": ",
                          absl::StrJoin(amounts, ", "), ")");
        }
        devices.push_back(d);
      }
      for (const dra::PoolView& p : report.pools) {
        for (const dra::DeviceView& d : p.devices) {
          const bool mine = std::find(d.holders.begin(), d.holders.end(),
                                      key) != d.holders.end() ||
                            std::find(d.sharers.begin(), d.sharers.end(),
                                      key) != d.sharers.end();
          if (!mine) continue;
          if (!d.binding_failure.empty()) {
            waits.push_back(absl::StrCat(d.name, " reports binding failure ",
                                         d.binding_failure));
          }
          for (const std::string& b : d.binding_waits) {
            waits.push_back(absl::StrCat(d.name, " has not reported ", b));
          }
        }
      }
      out.push_back(absl::StrCat(
          key, ": allocated ", absl::StrJoin(devices, ", "),
          waits.empty() ? ""
                        : absl::StrCat("; waiting for binding conditions: ",
                                       absl::StrJoin(waits, ", "))));
      continue;
    }
    std::vector<std::string> requests;
    for (const api::DeviceRequest& r : c.requests) {
      std::vector<std::string> choices;
      for (const api::DeviceChoice& ch : r.choices) {
        std::string text =
            ch.mode == api::AllocationMode::kAll
                ? absl::StrCat("all of class ", ch.device_class)
                : absl::StrCat(ch.count, " of class ", ch.device_class);
        std::vector<std::string> amounts;
        for (const auto& [name, q] : ch.capacity_requests)
          amounts.push_back(absl::StrCat(name, " ", q));
        if (!amounts.empty())
          absl::StrAppend(&text, ", capacity ", absl::StrJoin(amounts, ", "));
        if (!ch.tolerations.empty()) {
          absl::StrAppend(&text, ", tolerating ", ch.tolerations.size(),
                          ch.tolerations.size() == 1 ? " taint" : " taints");
        }
        if (ch.admin_access) absl::StrAppend(&text, ", admin access");
        choices.push_back(r.first_available ? absl::StrCat(ch.name, ": ", text)
                                            : text);
      }
      requests.push_back(absl::StrCat(
          "request ", r.name, ": ",
          r.first_available ? absl::StrCat("first available of ",
                                           absl::StrJoin(choices, "; "))
                            : absl::StrJoin(choices, "; ")));
    }
    out.push_back(
        absl::StrCat(key, ": not allocated; ", absl::StrJoin(requests, "; ")));
  }
  return out;
}

// Why a node refuses a pod, when the devices it reaches are the reason
// (the allocator's "claim C, request R: ..."; not a claim's own state,
// said as "resourceclaim ...", which is the same on every node).
bool DeviceReason(const std::string& reason) {
  return absl::StartsWith(reason, "claim ");
}

}  // namespace

void AddDeviceLines(const api::ClusterInfo& snap, const api::PodInfo& pod,
                    std::optional<dra::DeviceReport>& report,
                    v1::PodExplanation* p) {
  if (!report.has_value()) report = dra::DescribeDevices(*snap.devices);
  for (const std::string& line : ClaimLines(*snap.devices, *report, pod))
    p->add_claims(line);
  for (const v1::NodeVerdict& v : p->nodes()) {
    if (!std::any_of(v.reasons().begin(), v.reasons().end(),
                     [](const std::string& r) { return DeviceReason(r); })) {
      continue;
    }
    api::NodeIndex n = snap.FindNode(v.node());
    if (n == api::kNone) continue;
    std::vector<std::string> notes =
        DeviceNotes(PoolsFor(*report, *snap.devices, &snap.nodes[n]));
    if (notes.empty()) continue;
    v1::NodeDevices* d = p->add_devices();
    d->set_node(v.node());
    for (const std::string& note : notes) d->add_notes(note);
  }
}

absl::StatusOr<v1::DevicesResponse> Devices(const AdminBackend& backend,
                                            const v1::DevicesRequest& request) {
  api::ClusterInfo snap = backend.Snapshot();
  const api::NodeInfo* node = nullptr;
  if (!request.node().empty()) {
    api::NodeIndex n = snap.FindNode(request.node());
    if (n == api::kNone) {
      return absl::NotFoundError(
          absl::StrCat("node \"", request.node(), "\" is not in the cache"));
    }
    node = &snap.nodes[n];
  }
  v1::DevicesResponse out;
  if (snap.devices == nullptr) return out;
  const dra::DeviceReport report = dra::DescribeDevices(*snap.devices);
  for (const dra::PoolView* pp : PoolsFor(report, *snap.devices, node)) {
    const dra::PoolView& p = *pp;
    v1::DevicePool* pool = out.add_pools();
    pool->set_node(p.node);
    pool->set_driver(p.driver);
    pool->set_pool(p.pool);
    pool->set_generation(p.generation);
    pool->set_reach(p.reach);
    pool->set_incomplete(p.incomplete);
    for (const dra::DeviceView& d : p.devices) {
      v1::DeviceState* ds = pool->add_devices();
      ds->set_name(d.name);
      ds->set_state(d.State());
      ds->set_partition(d.partition);
      for (const auto& set : d.counter_sets) ds->add_counter_sets(set);
      ds->set_shareable(d.shareable);
      for (const auto& c : d.holders) ds->add_claims(c);
      for (const auto& c : d.sharers) ds->add_claims(c);
      ds->set_shares(static_cast<int32_t>(d.sharers.size()));
      for (const dra::AmountUse& u : d.capacity)
        *ds->add_capacity() = ToProto(u);
      for (const dra::TaintView& t : d.taints) {
        v1::DeviceTaint* taint = ds->add_taints();
        taint->set_key(t.taint.key);
        taint->set_value(t.taint.value);
        taint->set_effect(t.taint.effect);
        taint->set_rule(t.rule);
      }
      for (const auto& b : d.binding_waits) ds->add_binding_waits(b);
      ds->set_binding_failure(d.binding_failure);
      for (const auto& c : d.admin_access) ds->add_admin_access(c);
    }
    for (const dra::CounterSetView& cs : p.counter_sets) {
      v1::CounterSetUse* set = pool->add_counter_sets();
      set->set_name(cs.name);
      for (const dra::AmountUse& u : cs.counters)
        *set->add_counters() = ToProto(u);
    }
  }
  if (node == nullptr) {
    for (const std::string& u : report.unknown) out.add_unknown(u);
  }
  return out;
}

}  // namespace shoal::admin
