#include "scheduler/dra/allocator.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

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

}  // namespace

struct Allocator::Slot {
  const api::ResourceClaim* claim;
  const api::DeviceRequest* request;
  size_t choice = 0;
  std::vector<DeviceId> candidates;
  std::vector<DeviceId> chosen;
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

bool Allocator::Candidates(Slot& slot, const api::NodeInfo& node,
                           std::string* why) {
  const api::DeviceChoice& c = slot.request->choices[slot.choice];
  slot.candidates.clear();
  slot.chosen.clear();
  auto cls = inv_.world().classes.find(c.device_class);
  if (cls == inv_.world().classes.end()) {
    *why = absl::StrCat("device class ", c.device_class, " does not exist");
    return false;
  }
  std::vector<const Selector*> selectors;
  for (const std::string& s : cls->second.selectors)
    selectors.push_back(&inv_.SelectorFor(s));
  for (const std::string& s : c.selectors)
    selectors.push_back(&inv_.SelectorFor(s));
  int of_class = 0, matching = 0, taken = 0, unusable = 0;
  for (const Reach& reach : inv_.Reachable(node.index())) {
    const DeviceId d = reach.id;
    bool ok = true;
    for (size_t i = 0; i < selectors.size() && ok; ++i) {
      absl::StatusOr<bool> m = inv_.Matches(*selectors[i], d);
      if (!m.ok()) {
        *why = absl::StrCat("cannot evaluate `", selectors[i]->source,
                            "` for device ", inv_.devices()[d].Key(), ": ",
                            m.status().message());
        failure_ = *why;
        return false;
      }
      ok = *m;
      if (ok && i + 1 == cls->second.selectors.size()) ++of_class;
    }
    if (cls->second.selectors.empty()) ++of_class;
    if (!ok) continue;
    if (!reach.usable) {
      ++unusable;
      continue;
    }
    ++matching;
    if (taken_[d] || picked_[d]) {
      ++taken;
      continue;
    }
    slot.candidates.push_back(d);
  }
  if ((c.mode == api::AllocationMode::kAll ? matching : c.count) >
      kMaxDevicesPerClaim) {
    *why = absl::StrCat(
        "request ", slot.ResultName(), " asks for ",
        c.mode == api::AllocationMode::kAll ? matching : c.count,
        " devices, more than the ", kMaxDevicesPerClaim, " a claim may hold");
    return false;
  }
  if (c.mode == api::AllocationMode::kAll) {
    if (unusable > 0) {
      *why = absl::StrCat("request ", slot.ResultName(),
                          " asks for all devices of class ", c.device_class,
                          ", but a pool of them is being updated");
      return false;
    }
    if (matching == 0) {
      *why = of_class == 0 ? absl::StrCat("no device of class ", c.device_class)
                           : absl::StrCat("no device of class ", c.device_class,
                                          " matches ", Quoted(c.selectors));
      return false;
    }
    if (taken > 0) {
      *why = absl::StrCat("request ", slot.ResultName(), " asks for all ",
                          matching, " matching devices of class ",
                          c.device_class, ", ", taken, " of them allocated");
      return false;
    }
    return true;
  }
  if (static_cast<int64_t>(slot.candidates.size()) >= c.count) return true;
  if (of_class == 0) {
    *why = absl::StrCat("no device of class ", c.device_class);
  } else if (matching == 0) {
    *why = absl::StrCat("no device of class ", c.device_class, " matches ",
                        Quoted(c.selectors));
  } else if (slot.candidates.empty()) {
    *why = absl::StrCat("all matching devices of class ", c.device_class,
                        " allocated");
  } else {
    *why = absl::StrCat("request ", slot.ResultName(), " needs ", c.count,
                        " devices of class ", c.device_class, ", ",
                        slot.candidates.size(), " free");
  }
  return false;
}

bool Allocator::AgreesWithConstraints(const Slot& slot, DeviceId d) const {
  for (const api::DeviceConstraint& k : slot.claim->constraints) {
    if (!slot.Covers(k)) continue;
    const api::DeviceAttribute* mine =
        AttributeOf(*inv_.devices()[d].device, k.match_attribute);
    if (mine == nullptr) return false;
    for (const Slot& other : *slots_) {
      if (other.claim != slot.claim || other.chosen.empty() ||
          !other.Covers(k)) {
        continue;
      }
      for (DeviceId o : other.chosen) {
        const api::DeviceAttribute* theirs =
            AttributeOf(*inv_.devices()[o].device, k.match_attribute);
        if (theirs == nullptr || !(*theirs == *mine)) return false;
      }
    }
  }
  return true;
}

bool Allocator::Allocate(const std::vector<const api::ResourceClaim*>& claims,
                         const api::NodeInfo& node,
                         std::vector<api::DeviceAllocation>* out,
                         std::string* why) {
  std::string ignored;
  if (why == nullptr) why = &ignored;
  picked_.assign(inv_.devices().size(), 0);
  steps_ = 0;
  node_ = &node;
  failure_.clear();
  std::vector<Slot> slots;
  slots_ = &slots;
  for (const api::ResourceClaim* c : claims) {
    for (const api::DeviceRequest& r : c->requests) {
      slots.push_back(Slot{c, &r});
    }
  }
  if (!Search(slots, 0, 0)) {
    *why = failure_.empty() ? "cannot allocate all claims" : failure_;
    return false;
  }
  out->clear();
  for (const api::ResourceClaim* c : claims) {
    api::DeviceAllocation a;
    for (const Slot& s : slots) {
      if (s.claim != c) continue;
      for (DeviceId d : s.chosen) {
        const DeviceEntry& e = inv_.devices()[d];
        a.results.push_back(
            {s.ResultName(), e.slice->driver, e.slice->pool, e.device->name});
        if (!e.slice->node_name.empty()) {
          a.node = e.slice->node_name;
        } else if (e.slice->node_selector.has_value()) {
          MergeSelector(*e.slice->node_selector, a);
        }
      }
    }
    if (!a.node.empty()) a.node_selector.reset();
    out->push_back(std::move(a));
  }
  return true;
}

bool Allocator::Search(std::vector<Slot>& slots, size_t at, int) {
  if (at == slots.size()) return true;
  Slot& slot = slots[at];
  for (slot.choice = 0; slot.choice < slot.request->choices.size();
       ++slot.choice) {
    std::string why;
    over_limit_ = false;
    if (!Candidates(slot, *node_, &why)) {
      if (!failure_.empty() && failure_ == why) return false;  // CEL error
      // The last alternative's reason stands for the request.
      if (slot.choice + 1 == slot.request->choices.size()) {
        if (failure_.empty())
          failure_ = absl::StrCat("claim ", slot.claim->name, ", request ",
                                  slot.request->name, ": ", why);
      }
      continue;
    }
    if (Pick(slots, at, 0)) return true;
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
bool Allocator::Pick(std::vector<Slot>& slots, size_t at, size_t from) {
  Slot& slot = slots[at];
  const api::DeviceChoice& c = slot.request->choices[slot.choice];
  const size_t want = c.mode == api::AllocationMode::kAll
                          ? slot.candidates.size()
                          : static_cast<size_t>(c.count);
  if (slot.chosen.size() == want) {
    size_t held = 0;
    for (const Slot& s : slots)
      held += s.claim == slot.claim ? s.chosen.size() : 0;
    if (held > static_cast<size_t>(kMaxDevicesPerClaim)) {
      over_limit_ = true;
      failure_ = absl::StrCat("claim ", slot.claim->name, ": ", held,
                              " devices exceed the claim limit of ",
                              kMaxDevicesPerClaim);
      return false;
    }
    std::vector<DeviceId> mine = slot.chosen;
    if (Search(slots, at + 1, 0)) return true;
    // Search of later slots recomputed their candidates; ours stand.
    slot.chosen = std::move(mine);
    return false;
  }
  for (size_t i = from; i < slot.candidates.size(); ++i) {
    if (++steps_ > kMaxSearchSteps) return false;
    // Not enough candidates left to reach `want`.
    if (slot.candidates.size() - i < want - slot.chosen.size()) break;
    DeviceId d = slot.candidates[i];
    if (picked_[d] || !AgreesWithConstraints(slot, d)) {
      if (c.mode == api::AllocationMode::kAll) return false;
      continue;
    }
    picked_[d] = 1;
    slot.chosen.push_back(d);
    if (Pick(slots, at, i + 1)) return true;
    slot.chosen.pop_back();
    picked_[d] = 0;
    // Which devices were chosen cannot bring the count under the limit:
    // only another alternative can.
    if (over_limit_) return false;
    if (c.mode == api::AllocationMode::kAll) return false;
  }
  return false;
}

}  // namespace shoal::dra
