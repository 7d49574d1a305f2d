#include "scheduler/dra/ledger.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "scheduler/dra/allocator.h"
#include "scheduler/dra/capacity.h"

namespace shoal::dra {
namespace {

using nlohmann::json;

bool Reaches(const api::DeviceAllocation& a, const api::NodeInfo& n) {
  if (!a.node.empty()) return a.node == n.name();
  if (!a.node_selector.has_value()) return true;
  for (const api::NodeSelectorTerm& t : *a.node_selector) {
    if (api::MatchesTerm(t, n.spec().labels, n.name())) return true;
  }
  return false;
}

// status.allocation.devices.config, as kube-scheduler writes it: each
// configuration of each class the chosen devices came through (naming
// every request that used the class), then the claim's own entries that
// name no request or a request that got devices (of a firstAvailable
// request, only the alternative chosen); each says where it came from.
std::vector<std::string> ConfigOf(const api::DeviceWorld& world,
                                  const api::ResourceClaim& claim,
                                  const api::DeviceAllocation& a) {
  std::vector<std::string> used;  // result request names, in claim order
  std::vector<std::pair<std::string, std::vector<std::string>>> by_class;
  for (const api::DeviceRequest& r : claim.requests) {
    for (const api::DeviceChoice& c : r.choices) {
      const std::string name =
          r.first_available ? absl::StrCat(r.name, "/", c.name) : r.name;
      bool got = false;
      for (const api::DeviceResult& res : a.results) got |= res.request == name;
      if (!got) continue;
      used.push_back(name);
      if (r.first_available) used.push_back(r.name);
      auto it = std::find_if(
          by_class.begin(), by_class.end(),
          [&](const auto& e) { return e.first == c.device_class; });
      if (it == by_class.end()) {
        by_class.push_back({c.device_class, {}});
        it = by_class.end() - 1;
      }
      it->second.push_back(name);
    }
  }
  std::vector<std::string> out;
  for (const auto& [cls_name, requests] : by_class) {
    auto cls = world.classes.find(cls_name);
    if (cls == world.classes.end()) continue;
    for (const std::string& text : cls->second.config) {
      json entry = json::parse(text, nullptr, false);
      if (!entry.is_object()) continue;
      entry["source"] = "FromClass";
      entry["requests"] = requests;
      out.push_back(entry.dump());
    }
  }
  for (const std::string& text : claim.config) {
    json entry = json::parse(text, nullptr, false);
    if (!entry.is_object()) continue;
    bool applies = !entry.contains("requests") ||
                   !entry["requests"].is_array() || entry["requests"].empty();
    if (!applies) {
      for (const json& r : entry["requests"]) {
        applies |= r.is_string() &&
                   std::find(used.begin(), used.end(), r.get<std::string>()) !=
                       used.end();
      }
    }
    if (!applies) continue;
    entry["source"] = "FromClaim";
    out.push_back(entry.dump());
  }
  return out;
}

}  // namespace

Ledger::Ledger(std::shared_ptr<const api::DeviceWorld> world,
               const std::vector<api::NodeInfo>& nodes)
    : inv_(std::move(world), nodes), usage_(inv_), allocator_(inv_, usage_) {
  // What every claim's status says is allocated is held, whoever wrote
  // it: whole devices, shares with what they consume, and the counters
  // of both. Admin access holds nothing.
  for (const auto& [key, c] : inv_.world().claims) {
    if (!c.allocation.has_value()) continue;
    for (const SnapshotHold& h : SnapshotHolds(c))
      usage_.Take(h.device, h.amounts, h.whole);
  }
}

std::vector<const api::ResourceClaim*> Ledger::ClaimsOf(
    const api::PodInfo& pod) const {
  std::vector<const api::ResourceClaim*> out;
  for (const api::PodClaim& pc : pod.resource_claims) {
    claim_key_.assign(pod.ns);
    claim_key_.push_back('/');
    claim_key_.append(pc.claim);
    auto it = inv_.world().claims.find(claim_key_);
    const api::ResourceClaim* c =
        it == inv_.world().claims.end() || pc.claim.empty() ? nullptr
                                                            : &it->second;
    if (c != nullptr && std::find(out.begin(), out.end(), c) != out.end())
      continue;
    out.push_back(c);
  }
  return out;
}

std::string Ledger::Refusal(const api::PodInfo& pod,
                            std::string* kube_words) const {
  std::string ignored;
  if (kube_words == nullptr) kube_words = &ignored;
  const std::string who = absl::StrCat("pod ", pod.Key(), ": ");
  for (size_t i = 0; i < pod.resource_claims.size(); ++i) {
    const api::PodClaim& pc = pod.resource_claims[i];
    if (pc.claim.empty()) {
      *kube_words = absl::StrCat("pod \"", pod.Key(),
                                 "\": ResourceClaim not created yet");
      return absl::StrCat(
          who, "spec.resourceClaims[", i, "] (", pc.name,
          "): waiting for the claim made from template ", pc.template_name,
          pc.group.name.empty()
              ? " (pod status.resourceClaimStatuses names none yet)"
              : absl::StrCat(" for podgroup ", pod.ns, "/", pc.group.name,
                             " (its status.resourceClaimStatuses names none "
                             "yet)"));
    }
    auto it = inv_.world().claims.find(absl::StrCat(pod.ns, "/", pc.claim));
    if (it == inv_.world().claims.end()) {
      *kube_words = absl::StrCat("resourceclaim \"", pc.claim, "\" not found");
      return absl::StrCat(who, *kube_words);
    }
    const api::ResourceClaim& c = it->second;
    if (c.deleting) {
      *kube_words =
          absl::StrCat("resourceclaim \"", pc.claim, "\" is being deleted");
      return absl::StrCat(who, *kube_words);
    }
    // A template's claim is the pod's own (or its PodGroup's).
    if (!pc.template_name.empty() && pc.group.name.empty() &&
        c.owner_uid != pod.uid) {
      *kube_words =
          absl::StrCat("ResourceClaim ", c.Key(), " was not created for pod ",
                       pod.Key(), " (pod is not owner)");
      return absl::StrCat(who, *kube_words);
    }
    if (!c.unsupported_field.empty()) {
      *kube_words =
          absl::StrCat("resourceclaim ", c.Key(), " uses ", c.unsupported_field,
                       ", which Shoal does not implement yet");
      return absl::StrCat(who, *kube_words);
    }
    if (c.allocation.has_value()) {
      // Allocated with devices that must report binding conditions
      // (KEP-5007): the pod binds once every one of them has.
      std::string waits = BindingWait(c);
      if (!waits.empty()) {
        *kube_words = waits;
        return absl::StrCat(who, waits);
      }
      continue;
    }
    if (AllocationOf(c) != nullptr) continue;
    for (const api::DeviceRequest& r : c.requests) {
      for (const api::DeviceChoice& ch : r.choices) {
        const std::string request =
            r.first_available ? absl::StrCat(r.name, "/", ch.name) : r.name;
        auto cls = inv_.world().classes.find(ch.device_class);
        if (cls == inv_.world().classes.end()) {
          *kube_words = absl::StrCat("request ", request, ": device class ",
                                     ch.device_class, " does not exist");
          return absl::StrCat(who, "resourceclaim ", c.Key(), ": ",
                              *kube_words);
        }
        if (!cls->second.unsupported_field.empty()) {
          *kube_words = absl::StrCat("device class ", ch.device_class, " uses ",
                                     cls->second.unsupported_field,
                                     ", which Shoal does not implement yet");
          return absl::StrCat(who, "resourceclaim ", c.Key(), ": ",
                              *kube_words);
        }
        std::vector<std::string> all = cls->second.selectors;
        all.insert(all.end(), ch.selectors.begin(), ch.selectors.end());
        for (const std::string& expr : all) {
          const Selector& s = inv_.SelectorFor(expr);
          if (s.program.has_value()) continue;
          *kube_words =
              absl::StrCat("cannot evaluate selector `", expr, "`: ", s.error);
          return absl::StrCat(who, "resourceclaim ", c.Key(), ": ",
                              *kube_words);
        }
        // The class's selectors first, then the request's on the
        // devices the class admits.
        std::string error = SelectorError(cls->second, {}, c.Key());
        if (error.empty() && !ch.selectors.empty())
          error = SelectorError(cls->second, ch.selectors, c.Key());
        if (!error.empty()) {
          *kube_words = error;
          return absl::StrCat(who, error);
        }
      }
    }
  }
  return "";
}

std::string Ledger::BindingWait(const api::ResourceClaim& c) const {
  for (const api::DeviceResult& r : c.allocation->results) {
    if (r.binding_conditions.empty()) continue;
    const api::DeviceStatus* status = c.StatusOf(r);
    const std::string device =
        absl::StrCat(r.driver, "/", r.pool, "/", r.device);
    for (const std::string& f : r.binding_failure_conditions) {
      if (status != nullptr && status->Reports(f)) {
        return absl::StrCat("resourceclaim ", c.Key(), ": device ", device,
                            " reports binding failure condition ", f,
                            "; the claim must be deallocated before its "
                            "pods can be scheduled again");
      }
    }
    for (const std::string& b : r.binding_conditions) {
      if (status == nullptr || !status->Reports(b)) {
        return absl::StrCat("resourceclaim ", c.Key(), ": waiting for device ",
                            device, " to report binding condition ", b);
      }
    }
  }
  return "";
}

std::string Ledger::SelectorError(
    const api::DeviceClass& cls,
    const std::vector<std::string>& request_selectors,
    const std::string& claim_key) const {
  std::string key = cls.name;
  for (const std::string& s : request_selectors) absl::StrAppend(&key, "\n", s);
  auto [it, fresh] = selector_errors_.try_emplace(key);
  if (!fresh) {
    return it->second.empty() || request_selectors.empty()
               ? it->second
               : absl::StrCat("claim ", claim_key, ": ", it->second);
  }
  // Every device a node offers is tried, class selectors first, as
  // kube-scheduler's allocator tries them; the first error stands.
  std::string error;
  for (DeviceId d = 0;
       d < static_cast<DeviceId>(inv_.devices().size()) && error.empty(); ++d) {
    // Devices no node of the snapshot reaches are never tried.
    if (!inv_.devices()[d].usable || !inv_.devices()[d].reached) continue;
    bool passes = true;
    for (size_t i = 0; i < cls.selectors.size() && passes; ++i) {
      absl::StatusOr<bool> m =
          inv_.Matches(inv_.SelectorFor(cls.selectors[i]), d);
      if (!m.ok()) {
        if (request_selectors.empty()) {
          error = absl::StrCat("class ", cls.name, ": selector #", i,
                               ": CEL runtime error: ", m.status().message());
        }
        passes = false;
      } else {
        passes = *m;
      }
    }
    for (size_t i = 0; passes && i < request_selectors.size(); ++i) {
      absl::StatusOr<bool> m =
          inv_.Matches(inv_.SelectorFor(request_selectors[i]), d);
      if (!m.ok()) {
        error = absl::StrCat("selector #", i,
                             ": CEL runtime error: ", m.status().message());
      }
      passes = m.ok() && *m;
    }
  }
  it->second = error;
  return error.empty() || request_selectors.empty()
             ? error
             : absl::StrCat("claim ", claim_key, ": ", error);
}

const api::DeviceAllocation* Ledger::AllocationOf(
    const api::ResourceClaim& c) const {
  if (c.allocation.has_value()) return &*c.allocation;
  if (tentative_.empty()) return nullptr;
  auto it = tentative_.find(&c);
  return it == tentative_.end() ? nullptr : &it->second.allocation;
}

const std::vector<const api::ResourceClaim*>& Ledger::LastClaimsOf(
    const api::PodInfo& pod) const {
  if (!last_known_ || pod.ns != last_ns_ ||
      pod.resource_claims != last_pod_claims_) {
    last_claims_ = ClaimsOf(pod);
    last_ns_ = pod.ns;
    last_pod_claims_ = pod.resource_claims;
    last_known_ = true;
  }
  return last_claims_;
}

bool Ledger::Split(const api::PodInfo& pod, const api::NodeInfo& n,
                   std::vector<const api::ResourceClaim*>* to_allocate,
                   std::string* why) const {
  const std::vector<const api::ResourceClaim*>& claims = LastClaimsOf(pod);
  // The claim serving the pod's extended resources (always its last) is
  // used only where the node does not publish them itself.
  const api::ResourceClaim* unused = nullptr;
  if (!pod.resource_claims.empty() && pod.resource_claims.back().extended &&
      !claims.empty()) {
    const std::vector<api::ResourceId>& serves =
        pod.resource_claims.back().serves;
    const std::vector<api::ResourceId>& here = n.spec().served_by_devices;
    size_t through = 0;
    for (api::ResourceId id : serves)
      through += std::find(here.begin(), here.end(), id) != here.end();
    if (through == 0) {
      unused = claims.back();
    } else if (through < serves.size()) {
      *why = absl::StrCat(
          "node ", n.name(),
          " publishes some of the pod's extended resources itself and "
          "serves others through devices; Shoal serves a pod's extended "
          "resources all one way");
      return false;
    }
  }
  for (const api::ResourceClaim* c : claims) {
    if (c == nullptr) {
      *why = "a resource claim is missing";
      return false;
    }
    if (c == unused) continue;
    const api::DeviceAllocation* a = AllocationOf(*c);
    if (a == nullptr) {
      to_allocate->push_back(c);
    } else if (!lending_ && !c->allocation.has_value() && WaitsForRelease(*c)) {
      *why = absl::StrCat("resourceclaim ", c->name,
                          " is allocated to devices victims still hold");
      return false;
    } else if (!Reaches(*a, n)) {
      *why = a->node.empty()
                 ? absl::StrCat("resourceclaim ", c->name,
                                " is allocated to devices this node cannot "
                                "reach")
                 : absl::StrCat("resourceclaim ", c->name,
                                " is allocated to devices of node ", a->node);
      return false;
    }
  }
  return true;
}

bool Ledger::Fits(const api::PodInfo& pod, const api::NodeInfo& n,
                  std::string* why) {
  std::string ignored;
  to_allocate_.clear();
  if (!Split(pod, n, &to_allocate_, why != nullptr ? why : &ignored)) {
    return false;
  }
  if (to_allocate_.empty()) return true;
  // Whether, not which: the allocations are not written out, nor (when
  // `why` is null) the reasons.
  return allocator_.Allocate(to_allocate_, n, nullptr, why);
}

void Ledger::Place(const api::PodInfo& pod, const api::NodeInfo& n) {
  std::vector<const api::ResourceClaim*> to_allocate;
  std::string why;
  if (Split(pod, n, &to_allocate, &why)) {
    std::vector<api::DeviceAllocation> out;
    std::vector<std::vector<Hold>> holds;
    if (to_allocate.empty() ||
        allocator_.Allocate(to_allocate, n, &out, nullptr, &holds)) {
      for (size_t i = 0; i < to_allocate.size(); ++i) {
        Tentative& t = tentative_[to_allocate[i]];
        t.allocation = std::move(out[i]);
        t.allocation.config =
            ConfigOf(inv_.world(), *to_allocate[i], t.allocation);
        t.holds = std::move(holds[i]);
        t.once_released = lending_;
        for (const Hold& h : t.holds) {
          if (!h.admin) usage_.Take(h.device, h.amounts);
        }
      }
    }
  }
  // Every claim of the pod made this session counts the pod once, and
  // every claim it uses lists it (or its PodGroup) among this session's
  // consumers.
  for (const api::ResourceClaim* c : ClaimsOf(pod)) {
    if (c == nullptr) continue;
    auto it = tentative_.find(c);
    if (it != tentative_.end()) ++it->second.users;
    consumers_[c].push_back(ConsumerOf(pod, *c));
  }
}

void Ledger::Unplace(const api::PodInfo& pod) {
  waiting_.erase(pod.uid);
  for (const api::ResourceClaim* c : ClaimsOf(pod)) {
    if (c == nullptr) continue;
    std::vector<api::ClaimConsumer>& users = consumers_[c];
    auto mine = std::find(users.begin(), users.end(), ConsumerOf(pod, *c));
    if (mine != users.end()) users.erase(mine);
    auto it = tentative_.find(c);
    if (it == tentative_.end() || --it->second.users > 0) continue;
    for (const Hold& h : it->second.holds) {
      if (!h.admin) usage_.Give(h.device, h.amounts);
    }
    tentative_.erase(it);
  }
}

std::string Ledger::Signature(
    const api::PodInfo& pod,
    const absl::flat_hash_set<std::string>& shared) const {
  std::string out;
  for (const api::PodClaim& pc : pod.resource_claims) {
    auto it = inv_.world().claims.find(absl::StrCat(pod.ns, "/", pc.claim));
    if (pc.claim.empty() || it == inv_.world().claims.end() ||
        it->second.allocation.has_value() || shared.contains(it->first)) {
      absl::StrAppend(&out, "claim ", pod.ns, "/", pc.claim, "|", pc.name, ";");
      continue;
    }
    const api::ResourceClaim& c = it->second;
    for (const api::DeviceRequest& r : c.requests) {
      absl::StrAppend(&out, "r", r.name, r.first_available ? "*" : "", ":");
      for (const api::DeviceChoice& ch : r.choices) {
        absl::StrAppend(&out, ch.name, ",", ch.device_class, ",",
                        static_cast<int>(ch.mode), ",", ch.count, ",",
                        ch.admin_access ? "a," : "");
        for (const std::string& s : ch.selectors)
          absl::StrAppend(&out, s.size(), ":", s);
        for (const api::DeviceToleration& t : ch.tolerations) {
          absl::StrAppend(&out, "t", t.key, "=", t.op, "=", t.value, "=",
                          t.effect, ";");
        }
        for (const auto& [name, q] : ch.capacity_requests)
          absl::StrAppend(&out, "c", name, "=", q, ";");
      }
    }
    for (const api::DeviceConstraint& k : c.constraints) {
      absl::StrAppend(&out, "k", k.match_attribute, "!", k.distinct_attribute,
                      ":");
      for (const std::string& r : k.requests) absl::StrAppend(&out, r, ",");
    }
    absl::StrAppend(&out, ";");
  }
  return out;
}

api::ClaimConsumer Ledger::ConsumerOf(const api::PodInfo& pod,
                                      const api::ResourceClaim& c) const {
  for (const api::PodClaim& pc : pod.resource_claims) {
    if (pc.claim == c.name && !pc.group.name.empty()) return pc.group;
  }
  return {"pods", pod.name, pod.uid};
}

std::vector<api::ClaimWrite> Ledger::WritesFor(const api::PodInfo& pod) const {
  std::vector<api::ClaimWrite> out;
  for (const api::ResourceClaim* c : ClaimsOf(pod)) {
    if (c == nullptr) continue;
    const api::DeviceAllocation* a = AllocationOf(*c);
    if (a == nullptr) continue;  // Fits said otherwise: never bind it
    api::ClaimWrite w;
    w.ns = c->ns;
    w.name = c->name;
    w.uid = c->uid;
    w.resource_version = c->resource_version;
    w.api_version = c->api_version;
    w.allocation = *a;
    w.consumer = ConsumerOf(pod, *c);
    if (c->to_create) w.create = std::make_shared<api::ResourceClaim>(*c);
    // The pod's status names the claim serving its extended resources
    // (and which request serves which container) once it is written.
    if (c->extended_resources && pod.extended_claim != c->name)
      w.mappings = pod.extended_mappings;
    auto written = written_.find(c);
    if (written != written_.end()) {
      // A claim several pods of this session share: the first pod's
      // write allocates it with every one of them in reservedFor; each
      // other pod's follows it (two writes guarded by the resourceVersion
      // the snapshot saw would have the second refused), and binds only
      // once the allocation is there.
      w.follows = true;
      if (std::find(written->second.begin(), written->second.end(),
                    w.consumer) == written->second.end()) {
        written->second.push_back(w.consumer);  // another job's pod
      }
      w.reserved_for = written->second;
      out.push_back(std::move(w));
      continue;
    }
    w.newly_allocated = !c->allocation.has_value();
    // A PodGroup's claim reserved for the group already: nothing to write.
    if (!w.newly_allocated && w.consumer.resource != "pods" &&
        std::find(c->reserved_for.begin(), c->reserved_for.end(), w.consumer) !=
            c->reserved_for.end()) {
      continue;
    }
    w.reserved_for = c->reserved_for;
    auto users = consumers_.find(c);
    std::vector<api::ClaimConsumer> all = {w.consumer};
    if (users != consumers_.end()) {
      all.insert(all.end(), users->second.begin(), users->second.end());
    }
    for (const api::ClaimConsumer& u : all) {
      if (u.resource == "pods" && waiting_.contains(u.uid)) continue;
      if (std::find(w.reserved_for.begin(), w.reserved_for.end(), u) ==
          w.reserved_for.end()) {
        w.reserved_for.push_back(u);
      }
    }
    written_[c] = w.reserved_for;
    out.push_back(std::move(w));
  }
  return out;
}

int Ledger::TakenCount() const { return usage_.HeldCount(); }

}  // namespace shoal::dra
