#include "scheduler/dra/device_quota.h"

#include <algorithm>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "scheduler/api/resource_name.h"

namespace shoal::dra {
namespace {

// The resources one device of a class counts as.
struct ClassIds {
  std::vector<api::ResourceId> ids;
};

class Counter {
 public:
  Counter(Inventory& inv, const std::vector<api::NodeInfo>& nodes,
          const std::vector<bool>& quota_names)
      : inv_(inv), nodes_(nodes), quota_names_(quota_names) {}

  const ClassIds& IdsOf(const std::string& name) {
    auto found = ids_.find(name);
    if (found != ids_.end()) return found->second;
    ClassIds& mine = ids_[name];
    auto add = [this, &mine](absl::string_view resource) {
      auto id = api::InternResourceName(resource);
      if (id.ok() && *id < quota_names_.size() && quota_names_[*id]) {
        mine.ids.push_back(*id);
      }
    };
    add(DeviceClassResource(name));
    auto cls = inv_.world().classes.find(name);
    if (cls != inv_.world().classes.end() &&
        !cls->second.extended_resource_name.empty()) {
      add(cls->second.extended_resource_name);
    }
    return mine;
  }

  // Whether device `d` passes the class's selectors and `extra`.
  bool Matches(const api::DeviceClass& cls,
               const std::vector<std::string>& extra, DeviceId d) {
    for (const auto* list : {&cls.selectors, &extra}) {
      for (const std::string& expr : *list) {
        auto ok = inv_.Matches(inv_.SelectorFor(expr), d);
        if (!ok.ok() || !*ok) return false;
      }
    }
    return true;
  }

  // The class's devices in the cluster: each usable from some node, once.
  int64_t Total(const api::DeviceClass& cls) {
    if (usable_.empty()) MarkUsable();
    int64_t n = 0;
    static const std::vector<std::string> kNone;
    for (DeviceId d = 0; d < static_cast<DeviceId>(usable_.size()); ++d) {
      if (usable_[d] && Matches(cls, kNone, d)) ++n;
    }
    return n;
  }

  // The most devices of the choice one node reaches: what `All` takes at
  // most, wherever the pod goes.
  int64_t MostOnOneNode(const api::DeviceChoice& choice) {
    auto [it, fresh] = most_.try_emplace(&choice, 0);
    if (!fresh) return it->second;
    auto cls = inv_.world().classes.find(choice.device_class);
    if (cls == inv_.world().classes.end()) return 0;
    for (const api::NodeInfo& node : nodes_) {
      int64_t here = 0;
      for (const Reach& r : inv_.Reachable(node.index())) {
        if (r.usable && Matches(cls->second, choice.selectors, r.id)) ++here;
      }
      it->second = std::max(it->second, here);
    }
    return it->second;
  }

 private:
  // usable_[d]: some node may allocate d, and d is the first entry of its
  // device (a device listed by two generations counts once).
  void MarkUsable() {
    usable_.assign(inv_.devices().size(), 0);
    for (const api::NodeInfo& node : nodes_) {
      for (const Reach& r : inv_.Reachable(node.index())) {
        if (r.usable) usable_[inv_.Same(r.id).front()] = 1;
      }
    }
  }

  Inventory& inv_;
  const std::vector<api::NodeInfo>& nodes_;
  const std::vector<bool>& quota_names_;
  absl::flat_hash_map<std::string, ClassIds> ids_;
  absl::flat_hash_map<const api::DeviceChoice*, int64_t> most_;
  std::vector<uint8_t> usable_;
};

// The choice of `claim` a result ("gpu", or "gpu/big" for a
// firstAvailable alternative) was allocated for; null when none is.
const api::DeviceChoice* ChoiceOf(const api::ResourceClaim& claim,
                                  const std::string& result_request) {
  const size_t slash = result_request.find('/');
  const std::string request = result_request.substr(0, slash);
  for (const api::DeviceRequest& r : claim.requests) {
    if (r.name != request || r.choices.empty()) continue;
    if (slash == std::string::npos) return &r.choices[0];
    const std::string sub = result_request.substr(slash + 1);
    for (const api::DeviceChoice& c : r.choices) {
      if (c.name == sub) return &c;
    }
  }
  return nullptr;
}

// Devices of each class the claim takes (allocated) or asks for.
void ClaimDevices(Counter& counter, const api::ResourceClaim& claim,
                  absl::flat_hash_map<std::string, int64_t>& out) {
  if (claim.allocation.has_value()) {
    for (const api::DeviceResult& r : claim.allocation->results) {
      if (const api::DeviceChoice* c = ChoiceOf(claim, r.request)) {
        ++out[c->device_class];
      }
    }
    return;
  }
  for (const api::DeviceRequest& r : claim.requests) {
    if (r.choices.empty()) continue;
    const api::DeviceChoice& c = r.choices[0];
    out[c.device_class] += c.mode == api::AllocationMode::kAll
                               ? counter.MostOnOneNode(c)
                               : c.count;
  }
}

}  // namespace

std::string DeviceClassResource(absl::string_view device_class) {
  return absl::StrCat("deviceclass/", device_class);
}

std::vector<bool> QuotaNames(const std::vector<api::QueueInfo>& queues) {
  std::vector<bool> named(api::ResourceNameCount(), false);
  auto mark = [&named](const api::Resource& r, int64_t unnamed) {
    for (size_t id = 0; id < r.size() && id < named.size(); ++id) {
      const int64_t v = r.Get(static_cast<api::ResourceId>(id));
      if (v != unnamed && v != 0) named[id] = true;
    }
  };
  for (const api::QueueInfo& q : queues) {
    if (q.capability.has_value()) mark(*q.capability, api::kUnlimited);
    if (q.deserved.has_value()) mark(*q.deserved, api::kUnlimited);
    mark(q.guarantee, 0);
  }
  return named;
}

void CountDevices(Inventory& inventory, const std::vector<api::NodeInfo>& nodes,
                  const std::vector<bool>& quota_names,
                  std::vector<api::TaskInfo>& tasks, api::Resource& total,
                  std::vector<api::ResourceId>& ids,
                  const std::vector<api::ResourceId>& served) {
  const api::DeviceWorld& world = inventory.world();
  if (world.claims.empty()) return;
  if (std::find(quota_names.begin(), quota_names.end(), true) ==
      quota_names.end()) {
    return;
  }
  // Which task each claim counts on: one holding a share first, then the
  // first by name.
  absl::flat_hash_map<std::string, api::TaskIndex> owner;
  std::string key;
  for (api::TaskIndex t = 0; t < static_cast<api::TaskIndex>(tasks.size());
       ++t) {
    const api::PodInfo& pod = *tasks[t].pod;
    for (const api::PodClaim& pc : pod.resource_claims) {
      // A claim serving extended resources counts as the pod's request
      // of them (the node publishes its devices under their names).
      if (pc.claim.empty() || pc.extended) continue;
      key = absl::StrCat(pod.ns, "/", pc.claim);
      auto [it, fresh] = owner.try_emplace(key, t);
      if (fresh) continue;
      const api::TaskInfo& was = tasks[it->second];
      const bool holds = api::HoldsShare(tasks[t].status);
      const bool held = api::HoldsShare(was.status);
      if (holds != held ? holds : pod.Key() < was.pod->Key()) it->second = t;
    }
  }
  Counter counter(inventory, nodes, quota_names);
  absl::flat_hash_map<std::string, int64_t> classes;
  for (api::TaskIndex t = 0; t < static_cast<api::TaskIndex>(tasks.size());
       ++t) {
    api::TaskInfo& task = tasks[t];
    classes.clear();
    for (const api::PodClaim& pc : task.pod->resource_claims) {
      if (pc.claim.empty() || pc.extended) continue;
      key = absl::StrCat(task.pod->ns, "/", pc.claim);
      auto it = owner.find(key);
      if (it == owner.end() || it->second != t) continue;
      it->second = api::kNone;  // named twice by one pod: counted once
      auto claim = world.claims.find(key);
      if (claim != world.claims.end()) {
        ClaimDevices(counter, claim->second, classes);
      }
    }
    if (classes.empty()) continue;
    auto counted = std::make_shared<api::Resource>(task.request());
    bool any = false;
    for (const auto& [cls, n] : classes) {
      for (api::ResourceId id : counter.IdsOf(cls).ids) {
        counted->Set(id, counted->Get(id) + n);
        any = true;
      }
    }
    // Devices no quota names leave the pod as it was (not counted).
    if (any) task.with_devices = std::move(counted);
  }
  // The devices of every class a claim names.
  absl::flat_hash_set<std::string> seen;
  for (const auto& [claim_key, claim] : world.claims) {
    if (claim.extended_resources) continue;
    for (const api::DeviceRequest& r : claim.requests) {
      for (const api::DeviceChoice& c : r.choices) {
        if (!seen.insert(c.device_class).second) continue;
        auto cls = world.classes.find(c.device_class);
        if (cls == world.classes.end() ||
            counter.IdsOf(c.device_class).ids.empty()) {
          continue;
        }
        const int64_t n = counter.Total(cls->second);
        for (api::ResourceId id : counter.IdsOf(c.device_class).ids) {
          // The nodes publish these devices under that name already.
          if (std::find(served.begin(), served.end(), id) != served.end())
            continue;
          total.Set(id, total.Get(id) + n);
          if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
            ids.push_back(id);
          }
        }
      }
    }
  }
}

}  // namespace shoal::dra
