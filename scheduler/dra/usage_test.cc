#include "scheduler/dra/usage.h"

#include "gtest/gtest.h"
#include "scheduler/dra/testing.h"

namespace shoal::dra {
namespace {

using testing::Gpu;
using testing::World;

constexpr int64_t kGi = int64_t{1} << 30;

// One GPU offered whole and as two halves that share its 80Gi counter.
World Partitioned() {
  World w;
  api::Device whole = Gpu("gpu-0");
  whole.consumes_counters = {{"gpu-0", {{"memory", "80Gi"}}}};
  api::Device half0 = Gpu("gpu-0-half-0"), half1 = Gpu("gpu-0-half-1");
  half0.consumes_counters = {{"gpu-0", {{"memory", "40Gi"}}}};
  half1.consumes_counters = half0.consumes_counters;
  w.AddNode("node-1", {whole, half0, half1});
  w.MutableSlice(0).shared_counters = {{"gpu-0", {{"memory", "80Gi"}}}};
  return w;
}

DeviceId Named(const Inventory& inv, const std::string& name) {
  for (DeviceId d = 0; d < static_cast<DeviceId>(inv.devices().size()); ++d)
    if (inv.devices()[d].device->name == name) return d;
  return -1;
}

TEST(UsageTest, PartitionsSpendTheirGpusCounterAndTheWholeWaits) {
  World w = Partitioned();
  Inventory inv(w.devices, w.nodes);
  Usage u(inv);
  const DeviceId whole = Named(inv, "gpu-0"), h0 = Named(inv, "gpu-0-half-0"),
                 h1 = Named(inv, "gpu-0-half-1");
  ASSERT_TRUE(u.CanTake(h0, {}));
  u.Take(h0, {});
  EXPECT_TRUE(u.CanTake(h1, {}));
  EXPECT_FALSE(u.CanTake(whole, {}));
  EXPECT_TRUE(u.CountersSpent(whole));
  EXPECT_FALSE(u.Held(whole));
  u.Take(h1, {});
  EXPECT_FALSE(u.CanTake(h0, {}));
  u.Give(h0, {});
  u.Give(h1, {});
  EXPECT_TRUE(u.CanTake(whole, {}));
  u.Take(whole, {});
  EXPECT_FALSE(u.CanTake(h0, {}));
  EXPECT_EQ(u.HeldCount(), 1);
}

TEST(UsageTest, SharesOfADeviceConsumeItsCapacityUntilFull) {
  World w;
  api::Device gpu = Gpu("gpu-0");
  gpu.allow_multiple_allocations = true;
  w.AddNode("node-1", {gpu});
  Inventory inv(w.devices, w.nodes);
  Usage u(inv);
  const std::vector<int64_t> thirty = {30 * kGi * 1000};
  ASSERT_TRUE(u.CanTake(0, thirty));
  u.Take(0, thirty);
  ASSERT_TRUE(u.CanTake(0, thirty));
  u.Take(0, thirty);
  EXPECT_EQ(u.Consumed(0, 0), 60 * kGi * 1000);
  EXPECT_FALSE(u.CanTake(0, thirty));
  EXPECT_TRUE(u.CanTake(0, {20 * kGi * 1000}));
  u.Give(0, thirty);
  EXPECT_TRUE(u.CanTake(0, thirty));
}

TEST(UsageTest, ASharableDeviceHeldWholeIsNotShared) {
  World w;
  api::Device gpu = Gpu("gpu-0");
  gpu.allow_multiple_allocations = true;
  w.AddNode("node-1", {gpu});
  Inventory inv(w.devices, w.nodes);
  Usage u(inv);
  u.Take(0, {0}, /*whole=*/true);
  EXPECT_FALSE(u.CanTake(0, {kGi * 1000}));
  u.Give(0, {0});
  EXPECT_TRUE(u.CanTake(0, {kGi * 1000}));
}

TEST(InventoryTest, ADeviceSpendingAnUndeclaredCounterSetMakesItsPoolUnusable) {
  World w = Partitioned();
  w.MutableSlice(0).devices[1].consumes_counters[0].counter_set = "nope";
  Inventory inv(w.devices, w.nodes);
  for (const Reach& r : inv.Reachable(0)) EXPECT_FALSE(r.usable);
}

}  // namespace
}  // namespace shoal::dra
