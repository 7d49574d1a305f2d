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

Allocator::Allocator(Inventory& inventory, const std::vector<uint8_t>& taken)
    : inv_(inventory), taken_(taken) {}

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

bool Allocator::Candidates(Slot& slot, std::string* why) {
  const api::DeviceChoice& c = slot.request->choices[slot.choice];
  slot.candidates.clear();
  slot.chosen.clear();
  const Resolved& resolved = Resolve(c);
  if (resolved.cls == nullptr) {
    if (!quiet_)
      *why = absl::StrCat("device class ", c.device_class, " does not exist");
    return false;
  }
  const std::vector<const Selector*>& selectors = resolved.selectors;
  const size_t class_selectors = resolved.cls->selectors.size();
  int of_class = 0, matching = 0, taken = 0, unusable = 0;
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
    ++matching;
    if (taken_[d] || picked_[d]) {
      ++taken;
      continue;
    }
    slot.candidates.push_back(d);
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
  if (c.mode == api::AllocationMode::kAll) {
    if (unusable > 0) {
      if (quiet_) return false;
      *why = absl::StrCat("request ", slot.ResultName(),
                          " asks for all devices of class ", c.device_class,
                          ", but a pool of them is being updated");
      return false;
    }
    if (matching == 0) {
      if (quiet_) return false;
      *why = of_class == 0 ? absl::StrCat("no device of class ", c.device_class)
                           : absl::StrCat("no device of class ", c.device_class,
                                          " matches ", Quoted(c.selectors));
      return false;
    }
    if (taken > 0) {
      if (quiet_) return false;
      *why = absl::StrCat("request ", slot.ResultName(), " asks for all ",
                          matching, " matching devices of class ",
                          c.device_class, ", ", taken, " of them allocated");
      return false;
    }
    return true;
  }
  if (static_cast<int64_t>(slot.candidates.size()) >= c.count) return true;
  if (quiet_) return false;
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
    for (size_t s = 0; s < slot_count_; ++s) {
      const Slot& other = slots_[s];
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

void Allocator::ClearPicked() {
  for (DeviceId d : touched_) picked_[d] = 0;
  touched_.clear();
}

bool Allocator::Allocate(const std::vector<const api::ResourceClaim*>& claims,
                         const api::NodeInfo& node,
                         std::vector<api::DeviceAllocation>* out,
                         std::string* why) {
  quiet_ = why == nullptr;
  ClearPicked();
  if (picked_.size() != inv_.devices().size()) {
    picked_.assign(inv_.devices().size(), 0);
  }
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
    }
  }
  const bool found = Search(0);
  ClearPicked();
  if (!found) {
    if (!quiet_)
      *why = failure_.empty() ? "cannot allocate all claims" : failure_;
    return false;
  }
  if (out == nullptr) return true;
  out->clear();
  for (const api::ResourceClaim* c : claims) {
    api::DeviceAllocation a;
    for (size_t i = 0; i < slot_count_; ++i) {
      const Slot& s = slots_[i];
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
    touched_.push_back(d);
    slot.chosen.push_back(d);
    if (Pick(at, i + 1)) return true;
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
