#include "scheduler/dra/allocator.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/dra/capacity.h"

namespace shoal::dra {
namespace {

const api::DeviceAttribute* AttributeOf(const api::Device& d,
                                        const std::string& name) {
  for (const auto& [n, v] : d.attributes) {
    if (n == name) return &v;
  }
  return nullptr;
}

std::string Quoted(const std::vector<std::string>& selectors) {
  std::vector<std::string> q;
  for (const std::string& s : selectors) q.push_back(absl::StrCat("`", s, "`"));
  return absl::StrJoin(q, " and ");
}

// The allocation may be used where every network-attached device is
// reachable: the slices' selectors merged into one term, as
// kube-scheduler writes it (a selector of several terms, which one term
// cannot express, is kept as the first such selector alone).
void MergeSelector(const std::vector<api::NodeSelectorTerm>& terms,
                   api::DeviceAllocation& a) {
  if (!a.node_selector.has_value()) {
    a.node_selector = terms;
    return;
  }
  if (terms.size() != 1 || a.node_selector->size() != 1) return;
  api::NodeSelectorTerm& into = (*a.node_selector)[0];
  for (const auto& r : terms[0].match_expressions) {
    if (std::find(into.match_expressions.begin(), into.match_expressions.end(),
                  r) == into.match_expressions.end())
      into.match_expressions.push_back(r);
  }
  for (const auto& r : terms[0].match_fields) {
    if (std::find(into.match_fields.begin(), into.match_fields.end(), r) ==
        into.match_fields.end())
      into.match_fields.push_back(r);
  }
}

// A share's id: a UUID made from the claim, the result and the device,
// so the same allocation gets the same id (replays are repeatable) and
// two shares of one device never get the same.
std::string ShareId(const api::ResourceClaim& claim, size_t result,
                    const std::string& device) {
  const std::string key =
      absl::StrCat(claim.uid, "/", claim.Key(), "/", result, "/", device);
  uint64_t a = 1469598103934665603ull, b = 1099511628211ull;
  for (unsigned char ch : key) {
    a = (a ^ ch) * 1099511628211ull;
    b = (b + ch) * 6364136223846793005ull + 1442695040888963407ull;
  }
  char out[37];
  std::snprintf(out, sizeof out, "%08x-%04x-4%03x-%04x-%012llx",
                static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff),
                static_cast<unsigned>(a & 0xfff),
                static_cast<unsigned>(0x8000 | ((b >> 48) & 0x3fff)),
                static_cast<unsigned long long>(b & 0xffffffffffffull));
  return out;
}

}  // namespace

struct Allocator::Slot {
  const api::ResourceClaim* claim;
  const api::DeviceRequest* request;
  size_t choice = 0;
  std::vector<DeviceId> candidates;
  std::vector<DeviceId> chosen;
  // What each chosen device consumes (shared devices), beside `chosen`.
  std::vector<std::vector<int64_t>> amounts;
  bool admin() const { return request->choices[choice].admin_access; }
  // Whether the constraint applies to this request: it names none (so
  // all), the request, or the alternative being tried ("gpu/big").
  bool Covers(const api::DeviceConstraint& c) const {
    if (c.requests.empty()) return true;
    for (const std::string& r : c.requests) {
      if (r == request->name) return true;
      if (!request->first_available || choice >= request->choices.size())
        continue;
      const std::string& alt = request->choices[choice].name;
      if (r.size() == request->name.size() + 1 + alt.size() &&
          absl::StartsWith(r, request->name) &&
          r[request->name.size()] == '/' && absl::EndsWith(r, alt)) {
        return true;
      }
    }
    return false;
  }
  std::string ResultName() const {
    return request->first_available
               ? absl::StrCat(request->name, "/", request->choices[choice].name)
               : request->name;
  }
};

Allocator::Allocator(Inventory& inventory, Usage& usage)
    : inv_(inventory), usage_(usage) {}

Allocator::~Allocator() = default;

const Allocator::Resolved& Allocator::Resolve(const api::DeviceChoice& c) {
  auto [it, fresh] = resolved_.try_emplace(&c);
  if (fresh) {
    auto cls = inv_.world().classes.find(c.device_class);
    if (cls != inv_.world().classes.end()) {
      it->second.cls = &cls->second;
      for (const std::string& s : cls->second.selectors)
        it->second.selectors.push_back(&inv_.SelectorFor(s));
      for (const std::string& s : c.selectors)
        it->second.selectors.push_back(&inv_.SelectorFor(s));
    }
  }
  return it->second;
}

bool Allocator::Tolerated(const api::DeviceChoice& c, DeviceId d) const {
  for (const api::DeviceTaint* t : inv_.devices()[d].taints) {
    if (t->effect != "NoSchedule" && t->effect != "NoExecute") continue;
    bool tolerated = false;
    for (const api::DeviceToleration& k : c.tolerations)
      tolerated |= k.Tolerates(*t);
    if (!tolerated) return false;
  }
  return true;
}

bool Allocator::Candidates(Slot& slot, std::string* why) {
  const api::DeviceChoice& c = slot.request->choices[slot.choice];
  slot.candidates.clear();
  slot.chosen.clear();
  slot.amounts.clear();
  const Resolved& resolved = Resolve(c);
  if (resolved.cls == nullptr) {
    if (!quiet_)
      *why = absl::StrCat("device class ", c.device_class, " does not exist");
    return false;
  }
  const std::vector<const Selector*>& selectors = resolved.selectors;
  const size_t class_selectors = resolved.cls->selectors.size();
  // Why matching devices are not candidates, for the message.
  int of_class = 0, matching = 0, taken = 0, unusable = 0, tainted = 0,
      too_small = 0, spent = 0, full = 0;
  std::string taint_words;
  for (const Reach& reach : inv_.Reachable(node_->index())) {
    const DeviceId d = reach.id;
    bool ok = true;
    for (size_t i = 0; i < selectors.size() && ok; ++i) {
      absl::StatusOr<bool> m = inv_.Matches(*selectors[i], d);
      if (!m.ok()) {
        *why = absl::StrCat("cannot evaluate `", selectors[i]->source,
                            "` for device ", inv_.devices()[d].Key(), ": ",
                            m.status().message());
        failure_ = *why;
        cel_error_ = true;
        return false;
      }
      ok = *m;
      if (ok && i + 1 == class_selectors) ++of_class;
    }
    if (class_selectors == 0) ++of_class;
    if (!ok) continue;
    if (!reach.usable) {
      ++unusable;
      continue;
    }
    const DeviceEntry& e = inv_.devices()[d];
    if (e.tainted && !Tolerated(c, d)) {
      if (++tainted == 1 && !quiet_) {
        for (const api::DeviceTaint* t : e.taints) {
          if (t->effect != "NoSchedule" && t->effect != "NoExecute") continue;
          absl::StrAppend(&taint_words, taint_words.empty() ? "" : ", ", t->key,
                          t->value.empty() ? "" : "=", t->value, ":",
                          t->effect);
        }
      }
      continue;
    }
    // Nothing asked, no policy: a device that is not shared serves it
    // whatever its capacity, and nothing is consumed to count.
    if (c.capacity_requests.empty() && !e.capacity_policy &&
        !e.device->allow_multiple_allocations) {
      amounts_.clear();
    } else if (!Consumption(c, *e.device, e.slice->driver, e.capacity,
                            e.capacity_policy, &amounts_)) {
      ++too_small;
      continue;
    }
    ++matching;
    if (c.admin_access) {
      // Admin access sees devices in use; only this claim's own choices
      // are out of reach.
      if (picked_[d] == slot.claim) {
        ++taken;
        continue;
      }
    } else if (!usage_.CanTake(d, amounts_)) {
      if (quiet_) {
        ++taken;  // which kind of unavailable matters only to the words
      } else if (e.device->allow_multiple_allocations &&
                 !usage_.CountersSpent(d)) {
        ++full;
      } else if (!usage_.Held(d) && usage_.CountersSpent(d)) {
        ++spent;
      } else {
        ++taken;
      }
      continue;
    }
    slot.candidates.push_back(d);
    // One device for the only request of a claim with no constraints:
    // the search takes the first free one, so the rest need not be
    // looked at (unless words are wanted, which count them all).
    if (quiet_ && c.mode == api::AllocationMode::kExactCount && c.count == 1 &&
        slot_count_ == 1 && slot.claim->constraints.empty()) {
      break;
    }
  }
  if ((c.mode == api::AllocationMode::kAll ? matching : c.count) >
      kMaxDevicesPerClaim) {
    if (quiet_) return false;
    *why = absl::StrCat(
        "request ", slot.ResultName(), " asks for ",
        c.mode == api::AllocationMode::kAll ? matching : c.count,
        " devices, more than the ", kMaxDevicesPerClaim, " a claim may hold");
    return false;
  }
  const int unavailable = taken + spent + full;
  if (c.mode == api::AllocationMode::kAll) {
    if (unusable > 0) {
      if (quiet_) return false;
      *why = absl::StrCat("request ", slot.ResultName(),
                          " asks for all devices of class ", c.device_class,
                          ", but a pool of them is being updated");
      return false;
    }
    if (unavailable > 0) {
      if (quiet_) return false;
      *why =
          absl::StrCat("request ", slot.ResultName(), " asks for all ",
                       matching, " matching devices of class ", c.device_class,
                       ", ", unavailable, " of them allocated");
      return false;
    }
    if (matching > 0) return true;
  } else if (static_cast<int64_t>(slot.candidates.size()) >= c.count) {
    return true;
  }
  if (quiet_) return false;
  // The most specific reason first: what kept devices of the class that
  // match the selectors away.
  if (of_class == 0) {
    *why = absl::StrCat("no device of class ", c.device_class);
  } else if (matching == 0 && tainted > 0 && too_small == 0) {
    *why = absl::StrCat(tainted, " matching device",
                        tainted == 1 ? " of class " : "s of class ",
                        c.device_class, tainted == 1 ? " has" : " have",
                        " a taint the request does not tolerate (", taint_words,
                        tainted > 1 ? ", ..." : "", ")");
  } else if (matching == 0 && too_small > 0) {
    *why = absl::StrCat("no device of class ", c.device_class,
                        " has the capacity request ", slot.ResultName(),
                        " asks for");
  } else if (matching == 0) {
    *why = c.selectors.empty()
               ? absl::StrCat("no usable device of class ", c.device_class)
               : absl::StrCat("no device of class ", c.device_class,
                              " matches ", Quoted(c.selectors));
  } else if (slot.candidates.empty()) {
    std::vector<std::string> parts;
    if (taken > 0) parts.push_back(absl::StrCat(taken, " allocated"));
    if (spent > 0)
      parts.push_back(absl::StrCat(
          spent, " whose shared counters allocated partitions have spent"));
    if (full > 0)
      parts.push_back(
          absl::StrCat(full, " shared with too little capacity left"));
    if (tainted > 0)
      parts.push_back(absl::StrCat(tainted,
                                   " with a taint the request does "
                                   "not tolerate (",
                                   taint_words, tainted > 1 ? ", ..." : "",
                                   ")"));
    *why = taken > 0 && spent == 0 && full == 0 && tainted == 0
               ? absl::StrCat("all matching devices of class ", c.device_class,
                              " allocated")
               : absl::StrCat("no matching device of class ", c.device_class,
                              " is free: ", absl::StrJoin(parts, ", "));
  } else {
    *why = absl::StrCat("request ", slot.ResultName(), " needs ", c.count,
                        " devices of class ", c.device_class, ", ",
                        slot.candidates.size(), " free");
  }
  return false;
}

// An attribute is the set of its values (a scalar a set of one), as
// kube-scheduler's allocator takes it with list-typed attributes
// (DRAListTypeAttributes): matchAttribute holds while the sets of the
// chosen devices have a value in common (for scalars: all equal), and
// distinctAttribute while no two of them share a value (for scalars: all
// different). Values of different kinds never match, and never clash.
bool Allocator::AgreesWithConstraints(const Slot& slot, DeviceId d) const {
  std::vector<const api::DeviceAttribute*>& theirs = attributes_;
  for (const api::DeviceConstraint& k : slot.claim->constraints) {
    if (!slot.Covers(k)) continue;
    const bool distinct = !k.distinct_attribute.empty();
    const std::string& name =
        distinct ? k.distinct_attribute : k.match_attribute;
    const api::DeviceAttribute* mine =
        AttributeOf(*inv_.devices()[d].device, name);
    if (mine == nullptr) return false;
    theirs.clear();
    for (size_t s = 0; s < slot_count_; ++s) {
      const Slot& other = slots_[s];
      if (other.claim != slot.claim || other.chosen.empty() ||
          !other.Covers(k)) {
        continue;
      }
      for (DeviceId o : other.chosen) {
        const api::DeviceAttribute* a =
            AttributeOf(*inv_.devices()[o].device, name);
        if (a == nullptr) return false;
        if (distinct && a->Overlaps(*mine)) return false;
        theirs.push_back(a);
      }
    }
    if (distinct || theirs.empty()) continue;
    // Some value of this device is every chosen device's too.
    bool common = false;
    for (size_t j = 0; j < mine->size() && !common; ++j) {
      common = true;
      for (const api::DeviceAttribute* a : theirs) {
        if (!a->Holds(*mine, j)) {
          common = false;
          break;
        }
      }
    }
    if (!common) return false;
  }
  return true;
}

void Allocator::GiveBack() {
  for (size_t i = 0; i < slot_count_; ++i) {
    Slot& s = slots_[i];
    if (s.admin()) continue;
    for (size_t k = 0; k < s.chosen.size(); ++k)
      usage_.Give(s.chosen[k], s.amounts[k]);
  }
  for (auto it = touched_.rbegin(); it != touched_.rend(); ++it)
    picked_[it->first] = it->second;
  touched_.clear();
}

bool Allocator::Allocate(const std::vector<const api::ResourceClaim*>& claims,
                         const api::NodeInfo& node,
                         std::vector<api::DeviceAllocation>* out,
                         std::string* why,
                         std::vector<std::vector<Hold>>* holds) {
  quiet_ = why == nullptr;
  if (picked_.size() != inv_.devices().size()) {
    picked_.assign(inv_.devices().size(), nullptr);
  }
  touched_.clear();
  steps_ = 0;
  node_ = &node;
  failure_.clear();
  slot_count_ = 0;
  for (const api::ResourceClaim* c : claims) {
    for (const api::DeviceRequest& r : c->requests) {
      if (slot_count_ == slots_.size()) slots_.emplace_back();
      Slot& s = slots_[slot_count_++];
      s.claim = c;
      s.request = &r;
      s.choice = 0;
      s.candidates.clear();
      s.chosen.clear();
      s.amounts.clear();
    }
  }
  // A search that fails has given back all it took on the way.
  if (!Search(0)) {
    if (!quiet_)
      *why = failure_.empty() ? "cannot allocate all claims" : failure_;
    return false;
  }
  if (out != nullptr) out->clear();
  if (holds != nullptr) holds->clear();
  for (const api::ResourceClaim* c : claims) {
    api::DeviceAllocation a;
    std::vector<Hold> held;
    bool pinned = false;
    for (size_t i = 0; i < slot_count_; ++i) {
      const Slot& s = slots_[i];
      if (s.claim != c) continue;
      const api::DeviceChoice& choice = s.request->choices[s.choice];
      for (size_t k = 0; k < s.chosen.size(); ++k) {
        const DeviceId d = s.chosen[k];
        const DeviceEntry& e = inv_.devices()[d];
        held.push_back({d, s.amounts[k], choice.admin_access});
        if (out == nullptr) continue;
        api::DeviceResult r;
        r.request = s.ResultName();
        r.driver = e.slice->driver;
        r.pool = e.slice->pool;
        r.device = e.device->name;
        r.admin_access = choice.admin_access;
        r.tolerations = choice.tolerations;
        r.binding_conditions = e.device->binding_conditions;
        r.binding_failure_conditions = e.device->binding_failure_conditions;
        if (e.device->allow_multiple_allocations) {
          r.share_id = ShareId(*c, a.results.size(), e.Key());
          r.consumed_capacity = ConsumedCapacity(*e.device, s.amounts[k]);
        }
        a.results.push_back(std::move(r));
        // Where the allocation may be used: the node a device is local
        // to (or binds to), else the selectors of network-attached ones.
        const bool per_device = e.slice->per_device_node_selection;
        const std::string& local =
            per_device ? e.device->node_name : e.slice->node_name;
        const auto& selector =
            per_device ? e.device->node_selector : e.slice->node_selector;
        if (!local.empty() || e.device->binds_to_node) {
          pinned = true;
        } else if (selector.has_value()) {
          MergeSelector(*selector, a);
        }
      }
    }
    if (pinned) {
      a.node = node.name();
      a.node_selector.reset();
    }
    if (out != nullptr) out->push_back(std::move(a));
    if (holds != nullptr) holds->push_back(std::move(held));
  }
  GiveBack();
  return true;
}

bool Allocator::Search(size_t at) {
  if (at == slot_count_) return true;
  Slot& slot = slots_[at];
  for (slot.choice = 0; slot.choice < slot.request->choices.size();
       ++slot.choice) {
    std::string why;
    over_limit_ = false;
    cel_error_ = false;
    if (!Candidates(slot, &why)) {
      if (cel_error_) return false;
      // The last alternative's reason stands for the request.
      if (!quiet_ && slot.choice + 1 == slot.request->choices.size()) {
        if (failure_.empty())
          failure_ = absl::StrCat("claim ", slot.claim->name, ", request ",
                                  slot.request->name, ": ", why);
      }
      continue;
    }
    if (Pick(at, 0)) return true;
    if (steps_ > kMaxSearchSteps) {
      failure_ = absl::StrCat("claim ", slot.claim->name,
                              ": too many combinations of devices to try");
      return false;
    }
  }
  return false;
}

// Chooses the slot's devices one at a time from candidates[from...],
// then moves on to the next slot; undoes its picks when that fails.
bool Allocator::Pick(size_t at, size_t from) {
  Slot& slot = slots_[at];
  const api::DeviceChoice& c = slot.request->choices[slot.choice];
  const size_t want = c.mode == api::AllocationMode::kAll
                          ? slot.candidates.size()
                          : static_cast<size_t>(c.count);
  if (slot.chosen.size() == want) {
    size_t held = 0;
    for (size_t i = 0; i < slot_count_; ++i)
      held += slots_[i].claim == slot.claim ? slots_[i].chosen.size() : 0;
    if (held > static_cast<size_t>(kMaxDevicesPerClaim)) {
      over_limit_ = true;
      failure_ = absl::StrCat("claim ", slot.claim->name, ": ", held,
                              " devices exceed the claim limit of ",
                              kMaxDevicesPerClaim);
      return false;
    }
    // Later slots' search leaves this slot's choice as it is.
    return Search(at + 1);
  }
  const bool admin = c.admin_access;
  for (size_t i = from; i < slot.candidates.size(); ++i) {
    if (++steps_ > kMaxSearchSteps) return false;
    // Not enough candidates left to reach `want`.
    if (slot.candidates.size() - i < want - slot.chosen.size()) break;
    const DeviceId d = slot.candidates[i];
    const DeviceEntry& e = inv_.devices()[d];
    // What it would consume; whether it is still free, now that earlier
    // choices of this search may have taken it, its counters or its
    // capacity.
    if (c.capacity_requests.empty() && !e.capacity_policy &&
        !e.device->allow_multiple_allocations) {
      amounts_.clear();
    } else {
      Consumption(c, *e.device, e.slice->driver, e.capacity, e.capacity_policy,
                  &amounts_);
    }
    const bool free =
        admin ? picked_[d] != slot.claim : usage_.CanTake(d, amounts_);
    if (!free || !AgreesWithConstraints(slot, d)) {
      if (c.mode == api::AllocationMode::kAll) return false;
      continue;
    }
    if (!admin) usage_.Take(d, amounts_);
    touched_.emplace_back(d, picked_[d]);
    picked_[d] = slot.claim;
    slot.chosen.push_back(d);
    slot.amounts.push_back(amounts_);
    if (Pick(at, i + 1)) return true;
    slot.chosen.pop_back();
    std::vector<int64_t> given = std::move(slot.amounts.back());
    slot.amounts.pop_back();
    picked_[d] = touched_.back().second;
    touched_.pop_back();
    if (!admin) usage_.Give(d, given);
    // Which devices were chosen cannot bring the count under the limit:
    // only another alternative can.
    if (over_limit_) return false;
    if (c.mode == api::AllocationMode::kAll) return false;
  }
  return false;
}

}  // namespace shoal::dra
