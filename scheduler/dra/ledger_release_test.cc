// Ledger::Release: what victims of preempt and reclaim give back. Their
// devices are free for a pipelined pod (FitsOnceReleased) and stay held
// for what binds now (Fits), since the claim's status holds them until
// Kubernetes' controller deallocates it.
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scheduler/dra/ledger.h"
#include "scheduler/dra/testing.h"

namespace shoal::dra {
namespace {

using testing::Claim;
using testing::Gpu;
using testing::kDriver;
using testing::Pod;
using testing::World;

// `name`, allocated `devices` of node n1 and reserved for `pods`, as the
// API server shows a running pod's claim.
api::ResourceClaim Held(const std::string& name,
                        const std::vector<std::string>& devices,
                        const std::vector<std::string>& pods) {
  api::ResourceClaim c = Claim(name);
  c.allocation = api::DeviceAllocation{};
  c.allocation->node = "n1";
  for (const std::string& d : devices)
    c.allocation->results.push_back({"gpu", kDriver, "n1", d});
  for (const std::string& p : pods)
    c.reserved_for.push_back({"pods", p, "uid-" + p});
  return c;
}

TEST(LedgerRelease, AVictimsDevicesAreFreeForWhatWaitsNotForWhatBindsNow) {
  World w;
  w.AddNode("n1", {Gpu("gpu-0"), Gpu("gpu-1")});
  w.AddClaim(Held("low-0", {"gpu-0"}, {"low-0"}));
  w.AddClaim(Held("low-1", {"gpu-1"}, {"low-1"}));
  w.AddClaim(Claim("high-0"));
  w.AddClaim(Claim("high-1"));
  Ledger l = w.Make();
  const api::PodInfo low0 = Pod("low-0", {"low-0"});
  const api::PodInfo low1 = Pod("low-1", {"low-1"});
  const api::PodInfo high0 = Pod("high-0", {"high-0"});
  const api::PodInfo high1 = Pod("high-1", {"high-1"});
  const api::NodeInfo& n1 = w.nodes[0];
  std::string why;
  EXPECT_FALSE(l.FitsOnceReleased(high0, n1, &why));
  EXPECT_EQ(why,
            "claim high-0, request gpu: all matching devices of class gpu "
            "allocated");

  EXPECT_EQ(l.Release(low0), 1);
  EXPECT_EQ(l.ReleasedCount(), 1);
  EXPECT_FALSE(l.Fits(high0, n1));  // its claim still holds gpu-0
  EXPECT_TRUE(l.FitsOnceReleased(high0, n1));
  l.PlaceOnceReleased(high0, n1);
  EXPECT_EQ(l.TakenCount(), 2);  // held now, reserved for high-0 after
  // gpu-0 is promised to high-0, gpu-1 still held by low-1.
  EXPECT_FALSE(l.FitsOnceReleased(high1, n1));
  EXPECT_EQ(l.Release(low1), 1);
  ASSERT_TRUE(l.FitsOnceReleased(high1, n1));
  EXPECT_FALSE(l.Fits(high1, n1));
  l.PlaceOnceReleased(high1, n1);

  // Each pipelined claim on its own device, the one its victim held.
  std::vector<std::string> devices;
  for (const api::PodInfo* p : {&high0, &high1}) {
    auto writes = l.WritesFor(*p);
    ASSERT_EQ(writes.size(), 1u);
    ASSERT_EQ(writes[0].allocation.results.size(), 1u);
    devices.push_back(writes[0].allocation.results[0].device);
  }
  EXPECT_EQ(devices, (std::vector<std::string>{"gpu-0", "gpu-1"}));

  // Undone newest first, as a statement does: nothing is left behind.
  l.Unplace(high1);
  l.Unrelease(low1);
  l.Unplace(high0);
  l.Unrelease(low0);
  EXPECT_EQ(l.ReleasedCount(), 0);
  EXPECT_EQ(l.TakenCount(), 2);
  EXPECT_FALSE(l.FitsOnceReleased(high0, n1));
  EXPECT_EQ(l.Release(low0), 1);
  EXPECT_TRUE(l.FitsOnceReleased(high0, n1));
}

TEST(LedgerRelease, AClaimSharedWithAPodThatStaysFreesNothing) {
  World w;
  w.AddNode("n1", {Gpu("gpu-0")});
  w.AddClaim(Held("shared", {"gpu-0"}, {"a", "b"}));
  w.AddClaim(Claim("high"));
  Ledger l = w.Make();
  const api::PodInfo a = Pod("a", {"shared"}), b = Pod("b", {"shared"});
  const api::PodInfo high = Pod("high", {"high"});
  EXPECT_EQ(l.Release(a), 0);
  EXPECT_FALSE(l.FitsOnceReleased(high, w.nodes[0]));
  // Once the other consumer leaves too, the claim gives its device back.
  EXPECT_EQ(l.Release(b), 1);
  EXPECT_TRUE(l.FitsOnceReleased(high, w.nodes[0]));
  l.Unrelease(b);
  EXPECT_EQ(l.ReleasedCount(), 0);
  EXPECT_FALSE(l.FitsOnceReleased(high, w.nodes[0]));
}

TEST(LedgerRelease, AClaimReservedForSomethingElseOrNobodyKeepsItsDevices) {
  World w;
  w.AddNode("n1", {Gpu("gpu-0"), Gpu("gpu-1")});
  api::ResourceClaim other = Held("other", {"gpu-0"}, {"v"});
  other.reserved_for.push_back({"workloads", "w", "uid-w"});
  w.AddClaim(other);
  // Allocated, reserved for nobody (the controller is on its way, or a
  // scheduler reserves it next): Shoal assumes nothing of it.
  w.AddClaim(Held("nobody", {"gpu-1"}, {}));
  w.AddClaim(Claim("high"));
  Ledger l = w.Make();
  EXPECT_EQ(l.Release(Pod("v", {"other", "nobody"})), 0);
  EXPECT_FALSE(l.FitsOnceReleased(Pod("high", {"high"}), w.nodes[0]));
}

TEST(LedgerRelease, ASharePartitionAndWholeDeviceAreGivenBackAsTaken) {
  World w;
  // gpu-0 is shared by memory (two 40Gi shares held); gpu-1 is offered
  // whole or as two halves spending one 80Gi counter, both halves held.
  api::Device shared = Gpu("gpu-0", "shared");
  shared.allow_multiple_allocations = true;
  api::Device whole = Gpu("gpu-1", "whole");
  whole.consumes_counters = {{"gpu-1", {{"memory", "80Gi"}}}};
  api::Device half0 = Gpu("gpu-1-half-0", "half");
  half0.consumes_counters = {{"gpu-1", {{"memory", "40Gi"}}}};
  api::Device half1 = Gpu("gpu-1-half-1", "half");
  half1.consumes_counters = half0.consumes_counters;
  w.AddNode("n1", {shared, whole, half0, half1});
  w.MutableSlice(0).shared_counters = {{"gpu-1", {{"memory", "80Gi"}}}};
  for (const std::string name : {"victim-share", "staying-share"}) {
    api::ResourceClaim c = Held(name, {"gpu-0"}, {name});
    c.allocation->results[0].share_id = "share-" + name;
    c.allocation->results[0].consumed_capacity = {
        {std::string(kDriver) + "/memory", "40Gi"}};
    w.AddClaim(c);
  }
  w.AddClaim(Held("victim-half", {"gpu-1-half-0"}, {"victim-half"}));
  w.AddClaim(Held("staying-half", {"gpu-1-half-1"}, {"staying-half"}));
  auto of = [](const std::string& model) {
    return std::vector<std::string>{
        "device.attributes['gpu.example.com'].model == '" + model + "'"};
  };
  for (const std::string name : {"share", "share-2"}) {
    api::ResourceClaim c = Claim(name, 1, of("shared"));
    c.requests[0].choices[0].capacity_requests = {{"memory", "40Gi"}};
    w.AddClaim(c);
  }
  w.AddClaim(Claim("half", 1, of("half")));
  w.AddClaim(Claim("whole", 1, of("whole")));
  Ledger l = w.Make();
  const api::NodeInfo& n1 = w.nodes[0];
  const api::PodInfo share = Pod("share", {"share"});
  const api::PodInfo share2 = Pod("share-2", {"share-2"});
  const api::PodInfo half = Pod("half", {"half"});
  const api::PodInfo whole_pod = Pod("whole", {"whole"});
  EXPECT_FALSE(l.FitsOnceReleased(share, n1));
  EXPECT_FALSE(l.FitsOnceReleased(half, n1));

  // A victim's 40Gi share makes room for a 40Gi share, and only one.
  EXPECT_EQ(l.Release(Pod("victim-share", {"victim-share"})), 1);
  ASSERT_TRUE(l.FitsOnceReleased(share, n1));
  EXPECT_FALSE(l.Fits(share, n1));
  l.PlaceOnceReleased(share, n1);
  auto writes = l.WritesFor(share);
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].allocation.results[0].device, "gpu-0");
  EXPECT_FALSE(writes[0].allocation.results[0].share_id.empty());
  EXPECT_FALSE(l.FitsOnceReleased(share2, n1));

  // A half gives its counter back with it; the whole GPU waits for the
  // other half, which stays.
  EXPECT_EQ(l.Release(Pod("victim-half", {"victim-half"})), 1);
  EXPECT_TRUE(l.FitsOnceReleased(half, n1));
  EXPECT_FALSE(l.Fits(half, n1));
  EXPECT_FALSE(l.FitsOnceReleased(whole_pod, n1));
  EXPECT_EQ(l.Release(Pod("staying-half", {"staying-half"})), 1);
  EXPECT_TRUE(l.FitsOnceReleased(whole_pod, n1));
  EXPECT_FALSE(l.Fits(whole_pod, n1));
}

TEST(LedgerRelease, ASharableDeviceHeldWholeIsSharedOnlyOnceReleased) {
  World w;
  api::Device gpu = Gpu("gpu-0");
  gpu.allow_multiple_allocations = true;
  w.AddNode("n1", {gpu});
  w.AddClaim(Held("whole", {"gpu-0"}, {"v"}));  // no share id: whole
  for (const std::string name : {"share", "share-2"}) {
    api::ResourceClaim c = Claim(name);
    c.requests[0].choices[0].capacity_requests = {{"memory", "40Gi"}};
    w.AddClaim(c);
  }
  Ledger l = w.Make();
  const api::PodInfo p = Pod("p", {"share"}), q = Pod("q", {"share-2"});
  EXPECT_FALSE(l.FitsOnceReleased(p, w.nodes[0]));
  EXPECT_EQ(l.Release(Pod("v", {"whole"})), 1);
  ASSERT_TRUE(l.FitsOnceReleased(p, w.nodes[0]));
  l.PlaceOnceReleased(p, w.nodes[0]);
  // Held whole for what binds now, shareable once released: lending it
  // and taking it back leaves the count of whole holders as it was.
  EXPECT_FALSE(l.Fits(q, w.nodes[0]));
  EXPECT_TRUE(l.FitsOnceReleased(q, w.nodes[0]));
  EXPECT_FALSE(l.Fits(q, w.nodes[0]));
  EXPECT_TRUE(l.FitsOnceReleased(q, w.nodes[0]));
}

TEST(LedgerRelease, AClaimAllocatedOnceReleasedWaitsForTheVictimsToo) {
  World w;
  w.AddNode("n1", {Gpu("gpu-0"), Gpu("gpu-1")});
  w.AddClaim(Held("low", {"gpu-0"}, {"low"}));
  w.AddClaim(Claim("waits"));  // shared by a pipelined and a binding pod
  w.AddClaim(Claim("now"));    // shared by a binding and a pipelined pod
  Ledger l = w.Make();
  const api::NodeInfo& n1 = w.nodes[0];
  ASSERT_EQ(l.Release(Pod("low", {"low"})), 1);
  // A binding pod takes the free gpu-1 for "now"; its pipelined sharer
  // follows, and is not reserved in the claim before it binds.
  const api::PodInfo binds = Pod("binds", {"now"});
  const api::PodInfo follows = Pod("follows", {"now"});
  l.Place(binds, n1);
  l.PlaceOnceReleased(follows, n1);
  auto writes = l.WritesFor(binds);
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].allocation.results[0].device, "gpu-1");
  ASSERT_EQ(writes[0].reserved_for.size(), 1u);
  EXPECT_EQ(writes[0].reserved_for[0].name, "binds");
  // "waits" is allocated on gpu-0, which the victim's claim still holds:
  // a pod sharing it may be pipelined, not bound.
  const api::PodInfo pipelined = Pod("pipelined", {"waits"});
  const api::PodInfo sharer = Pod("sharer", {"waits"});
  ASSERT_TRUE(l.FitsOnceReleased(pipelined, n1));
  l.PlaceOnceReleased(pipelined, n1);
  std::string why;
  EXPECT_FALSE(l.Fits(sharer, n1, &why));
  EXPECT_EQ(why,
            "resourceclaim waits is allocated to devices victims still hold");
  EXPECT_TRUE(l.FitsOnceReleased(sharer, n1));
  l.Unplace(pipelined);
  EXPECT_TRUE(l.FitsOnceReleased(sharer, n1));
  EXPECT_FALSE(l.Fits(sharer, n1));  // gpu-0 held, gpu-1 taken by "now"
}

}  // namespace
}  // namespace shoal::dra
