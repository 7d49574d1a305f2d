// The cache's DRA objects (ResourceSlices, DeviceClasses, ResourceClaims)
// and the claim writes it assumes: like a bind, an allocation Shoal sent
// counts as made until the source shows the claim with it (or the write
// fails), so the next cycle never gives the same device twice. The world
// a snapshot gets is built again only when something here changed.
// Not thread-safe: the Cache calls it under its lock.
#ifndef SHOAL_SCHEDULER_CACHE_DEVICE_OBJECTS_H_
#define SHOAL_SCHEDULER_CACHE_DEVICE_OBJECTS_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "scheduler/api/devices.h"

namespace shoal::cache {

class DeviceObjects {
 public:
  void UpsertSlice(api::ResourceSlice slice);
  void DeleteSlice(const std::string& name);
  void UpsertClass(api::DeviceClass cls);
  void DeleteClass(const std::string& name);
  void UpsertTaintRule(api::DeviceTaintRule rule);
  void DeleteTaintRule(const std::string& name);
  void UpsertClaim(api::ResourceClaim claim);
  void DeleteClaim(const std::string& key);
  // A bind carrying these claim writes was sent / failed.
  void Assume(const std::vector<api::ClaimWrite>& writes);
  void Forget(const std::vector<api::ClaimWrite>& writes);
  void ForgetAll(const std::string& key);  // every write to the claim
  int AssumedCount() const { return static_cast<int>(assumed_.size()); }

  // The world as the next snapshot sees it (assumed writes applied);
  // null when there is nothing.
  std::shared_ptr<const api::DeviceWorld> World() const;

  // Everything as the source gave it, sorted by key (snapshot files).
  std::vector<api::ResourceSlice> Slices() const;
  std::vector<api::DeviceClass> Classes() const;
  std::vector<api::DeviceTaintRule> TaintRules() const;
  std::vector<api::ResourceClaim> Claims() const;  // with writes applied

 private:
  struct Assumed {
    // A claim the bind creates (ClaimWrite::create): part of the world
    // until the source shows it.
    std::shared_ptr<const api::ResourceClaim> created;
    std::optional<api::DeviceAllocation> allocation;  // when newly made
    std::vector<api::ClaimConsumer> consumers;
  };
  void Changed() { world_.reset(); }
  api::ResourceClaim Applied(const api::ResourceClaim& c) const;
  static api::ResourceClaim Created(const api::ResourceClaim& c);

  std::map<std::string, api::ResourceSlice> slices_;
  std::map<std::string, api::DeviceClass> classes_;
  std::map<std::string, api::DeviceTaintRule> taint_rules_;
  std::map<std::string, api::ResourceClaim> claims_;
  std::map<std::string, Assumed> assumed_;
  mutable std::shared_ptr<const api::DeviceWorld> world_;
};

}  // namespace shoal::cache

#endif  // SHOAL_SCHEDULER_CACHE_DEVICE_OBJECTS_H_
