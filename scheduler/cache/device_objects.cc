#include "scheduler/cache/device_objects.h"

#include <algorithm>
#include <utility>

namespace shoal::cache {

void DeviceObjects::UpsertSlice(api::ResourceSlice slice) {
  std::string name = slice.name;
  slices_[std::move(name)] = std::move(slice);
  Changed();
}

void DeviceObjects::DeleteSlice(const std::string& name) {
  if (slices_.erase(name) > 0) Changed();
}

void DeviceObjects::UpsertClass(api::DeviceClass cls) {
  std::string name = cls.name;
  classes_[std::move(name)] = std::move(cls);
  Changed();
}

void DeviceObjects::DeleteClass(const std::string& name) {
  if (classes_.erase(name) > 0) Changed();
}

void DeviceObjects::UpsertTaintRule(api::DeviceTaintRule rule) {
  std::string name = rule.name;
  taint_rules_[std::move(name)] = std::move(rule);
  Changed();
}

void DeviceObjects::DeleteTaintRule(const std::string& name) {
  if (taint_rules_.erase(name) > 0) Changed();
}

void DeviceObjects::UpsertClaim(api::ResourceClaim claim) {
  const std::string key = claim.Key();
  auto a = assumed_.find(key);
  if (a != assumed_.end()) {
    // The source shows what was written (or someone else's allocation,
    // which wins): the claim speaks for itself from now on.
    bool landed =
        !a->second.allocation.has_value() || claim.allocation.has_value();
    for (const api::ClaimConsumer& c : a->second.consumers) {
      landed = landed &&
               std::find(claim.reserved_for.begin(), claim.reserved_for.end(),
                         c) != claim.reserved_for.end();
    }
    auto held = claims_.find(key);
    // A claim Shoal created shows first as created, then as written.
    const bool recreated = held == claims_.end()
                               ? a->second.created == nullptr
                               : claim.uid != held->second.uid;
    if (landed || recreated) assumed_.erase(a);
  }
  claims_[key] = std::move(claim);
  Changed();
}

void DeviceObjects::DeleteClaim(const std::string& key) {
  assumed_.erase(key);
  if (claims_.erase(key) > 0) Changed();
}

void DeviceObjects::Assume(const std::vector<api::ClaimWrite>& writes) {
  for (const api::ClaimWrite& w : writes) {
    Assumed& a = assumed_[w.Key()];
    if (w.create != nullptr) a.created = w.create;
    if (w.newly_allocated) a.allocation = w.allocation;
    for (const api::ClaimConsumer& c : w.reserved_for) {
      if (std::find(a.consumers.begin(), a.consumers.end(), c) ==
          a.consumers.end())
        a.consumers.push_back(c);
    }
  }
  if (!writes.empty()) Changed();
}

void DeviceObjects::Forget(const std::vector<api::ClaimWrite>& writes) {
  for (const api::ClaimWrite& w : writes) {
    auto a = assumed_.find(w.Key());
    if (a == assumed_.end()) continue;
    auto& cs = a->second.consumers;
    for (const api::ClaimConsumer& c : w.reserved_for)
      cs.erase(std::remove(cs.begin(), cs.end(), c), cs.end());
    if (w.newly_allocated) a->second.allocation.reset();
    if (cs.empty() && !a->second.allocation.has_value()) assumed_.erase(a);
  }
  if (!writes.empty()) Changed();
}

void DeviceObjects::ForgetAll(const std::string& key) {
  if (assumed_.erase(key) > 0) Changed();
}

api::ResourceClaim DeviceObjects::Created(const api::ResourceClaim& c) {
  api::ResourceClaim out = c;
  out.to_create = false;  // it is on its way
  return out;
}

api::ResourceClaim DeviceObjects::Applied(const api::ResourceClaim& c) const {
  auto a = assumed_.find(c.Key());
  if (a == assumed_.end()) return c;
  api::ResourceClaim out = c;
  if (!out.allocation.has_value() && a->second.allocation.has_value())
    out.allocation = a->second.allocation;
  for (const api::ClaimConsumer& consumer : a->second.consumers) {
    if (std::find(out.reserved_for.begin(), out.reserved_for.end(), consumer) ==
        out.reserved_for.end())
      out.reserved_for.push_back(consumer);
  }
  return out;
}

std::shared_ptr<const api::DeviceWorld> DeviceObjects::World() const {
  if (world_ != nullptr) return world_;
  if (slices_.empty() && classes_.empty() && claims_.empty() &&
      taint_rules_.empty()) {
    return nullptr;
  }
  auto world = std::make_shared<api::DeviceWorld>();
  auto slices = std::make_shared<std::vector<api::ResourceSlice>>();
  slices->reserve(slices_.size());
  for (const auto& [name, s] : slices_) slices->push_back(s);
  world->slices = std::move(slices);
  for (const auto& [name, r] : taint_rules_) world->taint_rules.push_back(r);
  for (const auto& [name, c] : classes_) world->classes.emplace(name, c);
  for (const auto& [key, c] : claims_) world->claims.emplace(key, Applied(c));
  for (const auto& [key, a] : assumed_) {
    if (a.created != nullptr && claims_.count(key) == 0)
      world->claims.emplace(key, Applied(Created(*a.created)));
  }
  world_ = std::move(world);
  return world_;
}

std::vector<api::ResourceSlice> DeviceObjects::Slices() const {
  std::vector<api::ResourceSlice> out;
  for (const auto& [name, s] : slices_) out.push_back(s);
  return out;
}

std::vector<api::DeviceClass> DeviceObjects::Classes() const {
  std::vector<api::DeviceClass> out;
  for (const auto& [name, c] : classes_) out.push_back(c);
  return out;
}

std::vector<api::DeviceTaintRule> DeviceObjects::TaintRules() const {
  std::vector<api::DeviceTaintRule> out;
  for (const auto& [name, r] : taint_rules_) out.push_back(r);
  return out;
}

std::vector<api::ResourceClaim> DeviceObjects::Claims() const {
  std::vector<api::ResourceClaim> out;
  for (const auto& [key, c] : claims_) out.push_back(Applied(c));
  for (const auto& [key, a] : assumed_) {
    if (a.created != nullptr && claims_.count(key) == 0)
      out.push_back(Applied(Created(*a.created)));
  }
  std::sort(out.begin(), out.end(),
            [](const auto& x, const auto& y) { return x.Key() < y.Key(); });
  return out;
}

}  // namespace shoal::cache
