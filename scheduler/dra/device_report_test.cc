#include "scheduler/dra/device_report.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace shoal::dra {
namespace {

constexpr char kDriver[] = "gpu.example.com";

api::Device Device(const std::string& name) {
  api::Device d;
  d.name = name;
  return d;
}

api::Device Shareable(const std::string& name, const std::string& memory) {
  api::Device d = Device(name);
  d.allow_multiple_allocations = true;
  d.capacity = {{std::string(kDriver) + "/memory", memory, "memory", {}}};
  return d;
}

api::Device Partition(const std::string& name, const std::string& memory) {
  api::Device d = Device(name);
  d.consumes_counters = {{"gpu-4-counters", {{"memory", memory}}}};
  return d;
}

api::DeviceResult Result(const std::string& device,
                         const std::string& pool = "n1") {
  api::DeviceResult r;
  r.request = "gpu";
  r.driver = kDriver;
  r.pool = pool;
  r.device = device;
  return r;
}

void Allocate(api::DeviceWorld& w, const std::string& name,
              std::vector<api::DeviceResult> results) {
  api::ResourceClaim c;
  c.ns = "ml";
  c.name = name;
  c.allocation.emplace();
  c.allocation->results = std::move(results);
  w.claims[c.Key()] = std::move(c);
}

api::DeviceResult Share(const std::string& device, const std::string& id,
                        const std::string& memory) {
  api::DeviceResult r = Result(device);
  r.share_id = id;
  r.consumed_capacity = {{"memory", memory}};
  return r;
}

// n1: a shared GPU, a tainted one, one waiting for its binding condition,
// one held whole, a partitionable GPU with one half held; n2 (an older
// generation left behind) a GPU a DeviceTaintRule drains.
api::DeviceWorld World() {
  api::DeviceWorld w;
  api::ResourceSlice n1;
  n1.name = "n1-devices";
  n1.driver = kDriver;
  n1.pool = "n1";
  n1.node_name = "n1";
  n1.generation = 1;
  api::Device tainted = Device("gpu-1");
  tainted.taints = {{"gpu.example.com/unhealthy", "true", "NoSchedule", ""}};
  api::Device attached = Device("gpu-2");
  attached.binding_conditions = {"dra.example.com/attached"};
  n1.devices = {Shareable("gpu-0", "80Gi"),
                tainted,
                attached,
                Device("gpu-3"),
                Partition("gpu-4", "80Gi"),
                Partition("gpu-4-half-0", "40Gi"),
                Partition("gpu-4-half-1", "40Gi")};
  n1.shared_counters = {{"gpu-4-counters", {{"memory", "80Gi"}}}};
  api::ResourceSlice n2;
  n2.name = "n2-devices";
  n2.driver = kDriver;
  n2.pool = "n2";
  n2.node_name = "n2";
  n2.generation = 2;
  n2.slice_count = 2;  // one slice missing
  n2.devices = {Device("gpu-0")};
  api::ResourceSlice old = n2;
  old.name = "n2-old";
  old.generation = 1;
  old.devices = {Device("gpu-0"), Device("gpu-9")};
  w.slices = std::make_shared<const std::vector<api::ResourceSlice>>(
      std::vector<api::ResourceSlice>{n1, n2, old});
  api::DeviceTaintRule rule;
  rule.name = "drain";
  rule.driver = kDriver;
  rule.pool = "n2";
  rule.device = "gpu-0";
  rule.taint = {"example.com/maintenance", "planned", "NoExecute", ""};
  w.taint_rules = {rule};
  Allocate(w, "share-a", {Share("gpu-0", "a", "30Gi")});
  Allocate(w, "share-b", {Share("gpu-0", "b", "30Gi")});
  Allocate(w, "whole", {Result("gpu-3")});
  Allocate(w, "half", {Result("gpu-4-half-0")});
  api::DeviceResult waits = Result("gpu-2");
  waits.binding_conditions = {"dra.example.com/attached"};
  Allocate(w, "train", {waits});
  Allocate(w, "gone", {Result("gpu-9", "n2")});
  return w;
}

const DeviceView& Find(const DeviceReport& r, const std::string& node,
                       const std::string& name) {
  for (const PoolView& p : r.pools) {
    if (p.node != node) continue;
    for (const DeviceView& d : p.devices) {
      if (d.name == name) return d;
    }
  }
  static const DeviceView none;
  ADD_FAILURE() << "no device " << node << "/" << name;
  return none;
}

TEST(DeviceReport, SharesPartitionsTaintsAndBindingConditions) {
  const DeviceReport r = DescribeDevices(World());
  ASSERT_EQ(r.pools.size(), 2u);
  EXPECT_EQ(r.pools[0].node, "n1");
  EXPECT_EQ(r.pools[0].reach, "node n1");
  EXPECT_FALSE(r.pools[0].incomplete);
  EXPECT_EQ(r.pools[1].node, "n2");
  EXPECT_EQ(r.pools[1].generation, 2);
  EXPECT_TRUE(r.pools[1].incomplete);
  ASSERT_EQ(r.pools[1].devices.size(), 1u);  // the newest generation's

  const DeviceView& shared = Find(r, "n1", "gpu-0");
  EXPECT_EQ(shared.State(), "shared");
  EXPECT_EQ(shared.sharers,
            (std::vector<std::string>{"ml/share-a", "ml/share-b"}));
  ASSERT_EQ(shared.capacity.size(), 1u);
  EXPECT_EQ(shared.capacity[0].name, "memory");
  EXPECT_EQ(UseText(shared.capacity[0]), "60Gi/80Gi");

  const DeviceView& tainted = Find(r, "n1", "gpu-1");
  EXPECT_EQ(tainted.State(), "tainted");
  ASSERT_EQ(tainted.taints.size(), 1u);
  EXPECT_EQ(tainted.taints[0].Text(),
            "gpu.example.com/unhealthy=true:NoSchedule");

  const DeviceView& waiting = Find(r, "n1", "gpu-2");
  EXPECT_EQ(waiting.State(), "allocated");
  EXPECT_EQ(waiting.binding_waits,
            (std::vector<std::string>{"dra.example.com/attached"}));
  EXPECT_EQ(Find(r, "n1", "gpu-3").holders,
            (std::vector<std::string>{"ml/whole"}));

  // The half held spends 40Gi of 80Gi: the whole GPU (80Gi) cannot be
  // given, the other half can.
  EXPECT_EQ(Find(r, "n1", "gpu-4-half-0").State(), "allocated");
  EXPECT_TRUE(Find(r, "n1", "gpu-4-half-0").partition);
  EXPECT_EQ(Find(r, "n1", "gpu-4").State(), "counters spent");
  EXPECT_EQ(Find(r, "n1", "gpu-4-half-1").State(), "free");
  ASSERT_EQ(r.pools[0].counter_sets.size(), 1u);
  EXPECT_EQ(r.pools[0].counter_sets[0].name, "gpu-4-counters");
  ASSERT_EQ(r.pools[0].counter_sets[0].counters.size(), 1u);
  EXPECT_EQ(UseText(r.pools[0].counter_sets[0].counters[0]), "40Gi/80Gi");

  const DeviceView& drained = Find(r, "n2", "gpu-0");
  EXPECT_EQ(drained.State(), "tainted");
  ASSERT_EQ(drained.taints.size(), 1u);
  EXPECT_EQ(drained.taints[0].rule, "drain");

  // gpu-9 is only in n2's older generation.
  EXPECT_EQ(r.unknown,
            (std::vector<std::string>{"ml/gone: gpu.example.com/n2/gpu-9"}));
}

TEST(DeviceReport, ReportedConditionsAndThisCyclesWrites) {
  api::DeviceWorld w = World();
  api::ResourceClaim& train = w.claims["ml/train"];
  api::DeviceStatus s;
  s.driver = kDriver;
  s.pool = "n1";
  s.device = "gpu-2";
  s.conditions = {{"dra.example.com/attached", "True"}};
  train.device_statuses = {s};
  EXPECT_TRUE(Find(DescribeDevices(w), "n1", "gpu-2").binding_waits.empty());

  // A share written this cycle counts beside the snapshot's.
  api::DeviceAllocation third;
  third.results = {Share("gpu-0", "c", "20Gi")};
  const DeviceReport r = DescribeDevices(w, {{"ml/share-c", &third}});
  const DeviceView& shared = Find(r, "n1", "gpu-0");
  EXPECT_EQ(shared.sharers.size(), 3u);
  EXPECT_EQ(UseText(shared.capacity[0]), "80Gi/80Gi");
}

TEST(DeviceReport, TotalsByDriver) {
  const api::DeviceWorld world = World();
  const auto totals = TotalsByDriver(world);
  ASSERT_EQ(totals.size(), 1u);
  const DriverTotals& t = totals.at(kDriver);
  EXPECT_EQ(t.devices, 8);
  EXPECT_EQ(t.allocated, 3);  // gpu-2, gpu-3, gpu-4-half-0
  EXPECT_EQ(t.partitions_allocated, 1);
  EXPECT_EQ(t.shared, 1);
  EXPECT_EQ(t.shares, 2);
  EXPECT_EQ(t.binding_waiting, 1);
  EXPECT_EQ(t.tainted.at("NoSchedule"), 1);
  EXPECT_EQ(t.tainted.at("NoExecute"), 1);
  EXPECT_EQ(t.shared_capacity.at("memory").used, (int64_t{60} << 30) * 1000);
  EXPECT_EQ(t.shared_capacity.at("memory").total, (int64_t{80} << 30) * 1000);
  EXPECT_EQ(t.counters.at("memory").used, (int64_t{40} << 30) * 1000);
  EXPECT_EQ(t.counters.at("memory").total, (int64_t{80} << 30) * 1000);

  // The same as the report says, device by device.
  int allocated = 0, shared = 0, shares = 0, waiting = 0, tainted = 0;
  int devices = 0;
  for (const PoolView& p : DescribeDevices(world).pools) {
    for (const DeviceView& d : p.devices) {
      ++devices;
      allocated += !d.holders.empty();
      shared += !d.sharers.empty();
      shares += static_cast<int>(d.sharers.size());
      waiting += !d.binding_waits.empty();
      tainted += !d.taints.empty();
    }
  }
  EXPECT_EQ(devices, t.devices);
  EXPECT_EQ(allocated, t.allocated);
  EXPECT_EQ(shared, t.shared);
  EXPECT_EQ(shares, t.shares);
  EXPECT_EQ(waiting, t.binding_waiting);
  EXPECT_EQ(tainted, 2);

  // This cycle's writes count, as in the report.
  api::DeviceAllocation third;
  third.results = {Share("gpu-0", "c", "20Gi")};
  const auto more = TotalsByDriver(world, {{"ml/share-c", &third}});
  EXPECT_EQ(more.at(kDriver).shares, 3);
  EXPECT_EQ(more.at(kDriver).shared_capacity.at("memory").used,
            (int64_t{80} << 30) * 1000);
}

}  // namespace
}  // namespace shoal::dra
