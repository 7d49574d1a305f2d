// Small device worlds for the DRA tests: GPUs of one driver on named
// nodes, a class "gpu" that selects them, claims in namespace "ml".
#ifndef SHOAL_SCHEDULER_DRA_TESTING_H_
#define SHOAL_SCHEDULER_DRA_TESTING_H_

#include <memory>
#include <string>
#include <vector>

#include "scheduler/api/devices.h"
#include "scheduler/api/node_info.h"
#include "scheduler/api/task_info.h"
#include "scheduler/dra/ledger.h"

namespace shoal::dra::testing {

using api::DeviceAttribute;

inline constexpr char kDriver[] = "gpu.example.com";

inline api::Device Gpu(const std::string& name,
                       const std::string& model = "a100", int64_t numa = 0) {
  api::Device d;
  d.name = name;
  DeviceAttribute m;
  m.s = model;
  DeviceAttribute n;
  n.kind = DeviceAttribute::Kind::kInt;
  n.i = numa;
  d.attributes = {{std::string(kDriver) + "/model", m},
                  {std::string(kDriver) + "/numa", n}};
  d.capacity = {{std::string(kDriver) + "/memory", "80Gi", "memory", {}}};
  return d;
}

inline api::ResourceSlice Slice(const std::string& node,
                                std::vector<api::Device> devices) {
  api::ResourceSlice s;
  s.name = node + "-gpus";
  s.driver = kDriver;
  s.pool = node;
  s.node_name = node;
  s.devices = std::move(devices);
  return s;
}

inline api::ResourceClaim Claim(const std::string& name, int64_t count = 1,
                                std::vector<std::string> selectors = {}) {
  api::ResourceClaim c;
  c.ns = "ml";
  c.name = name;
  c.uid = "uid-" + name;
  api::DeviceRequest r;
  r.name = "gpu";
  api::DeviceChoice ch;
  ch.name = "gpu";
  ch.device_class = "gpu";
  ch.count = count;
  ch.selectors = std::move(selectors);
  r.choices = {ch};
  c.requests = {r};
  return c;
}

struct World {
  std::shared_ptr<api::DeviceWorld> devices =
      std::make_shared<api::DeviceWorld>();
  std::vector<api::NodeInfo> nodes;

  World() {
    api::DeviceClass cls;
    cls.name = "gpu";
    cls.selectors = {"device.driver == 'gpu.example.com'"};
    devices->classes["gpu"] = cls;
  }
  void AddNode(const std::string& name, std::vector<api::Device> gpus) {
    auto spec = std::make_shared<api::NodeSpec>();
    spec->name = name;
    nodes.emplace_back(spec, static_cast<api::NodeIndex>(nodes.size()));
    if (!gpus.empty()) {
      auto slices =
          std::make_shared<std::vector<api::ResourceSlice>>(*devices->slices);
      slices->push_back(Slice(name, std::move(gpus)));
      devices->slices = std::move(slices);
    }
  }
  // The world's slice `i`, to change (the slices are shared: copied first).
  api::ResourceSlice& MutableSlice(size_t i) {
    auto slices =
        std::make_shared<std::vector<api::ResourceSlice>>(*devices->slices);
    api::ResourceSlice& out = (*slices)[i];
    devices->slices = std::move(slices);
    return out;
  }
  void AddClaim(api::ResourceClaim c) {
    devices->claims[c.Key()] = std::move(c);
  }
  Ledger Make() const { return Ledger(devices, nodes); }
};

inline api::PodInfo Pod(const std::string& name,
                        std::vector<std::string> claims) {
  api::PodInfo p;
  p.ns = "ml";
  p.name = name;
  p.uid = "uid-" + name;
  for (const std::string& c : claims) p.resource_claims.push_back({c, c, ""});
  return p;
}

}  // namespace shoal::dra::testing

#endif  // SHOAL_SCHEDULER_DRA_TESTING_H_
