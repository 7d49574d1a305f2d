#include "scheduler/dra/ledger.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scheduler/dra/testing.h"

namespace shoal::dra {
namespace {

using testing::Claim;
using testing::Gpu;
using testing::kDriver;
using testing::Pod;
using testing::World;

TEST(Ledger, FourPodsTakeFourDistinctDevicesOnTwoNodesAndAFifthFindsNone) {
  World w;
  w.AddNode("n1", {Gpu("gpu-0"), Gpu("gpu-1")});
  w.AddNode("n2", {Gpu("gpu-0"), Gpu("gpu-1")});
  for (int i = 0; i < 5; ++i) w.AddClaim(Claim("c" + std::to_string(i)));
  Ledger l = w.Make();
  std::vector<api::PodInfo> pods;
  for (int i = 0; i < 5; ++i)
    pods.push_back(Pod("p" + std::to_string(i), {"c" + std::to_string(i)}));
  for (int i = 0; i < 4; ++i) {
    const api::NodeInfo& n = w.nodes[i / 2];
    ASSERT_TRUE(l.Fits(pods[i], n)) << i;
    l.Place(pods[i], n);
  }
  EXPECT_EQ(l.TakenCount(), 4);
  std::vector<std::string> taken;
  for (int i = 0; i < 4; ++i) {
    auto writes = l.WritesFor(pods[i]);
    ASSERT_EQ(writes.size(), 1u);
    EXPECT_TRUE(writes[0].newly_allocated);
    ASSERT_EQ(writes[0].allocation.results.size(), 1u);
    const auto& r = writes[0].allocation.results[0];
    EXPECT_EQ(writes[0].allocation.node, w.nodes[i / 2].name());
    taken.push_back(r.pool + "/" + r.device);
    EXPECT_EQ(writes[0].reserved_for.size(), 1u);
  }
  std::sort(taken.begin(), taken.end());
  EXPECT_EQ(std::unique(taken.begin(), taken.end()), taken.end());
  std::string why;
  EXPECT_FALSE(l.Fits(pods[4], w.nodes[0], &why));
  EXPECT_EQ(why,
            "claim c4, request gpu: all matching devices of class gpu "
            "allocated");
  // Undoing a placement gives its device back.
  l.Unplace(pods[3]);
  EXPECT_EQ(l.TakenCount(), 3);
  EXPECT_TRUE(l.Fits(pods[4], w.nodes[1]));
}

TEST(Ledger, AClaimAllocatedInTheSnapshotHoldsItsDevicesAndConfinesItsPods) {
  World w;
  w.AddNode("n1", {Gpu("gpu-0")});
  w.AddNode("n2", {Gpu("gpu-0")});
  api::ResourceClaim held = Claim("held");
  held.allocation = api::DeviceAllocation{
      {{"gpu", kDriver, "n1", "gpu-0"}}, {}, "n1", std::nullopt};
  w.AddClaim(held);
  w.AddClaim(Claim("fresh"));
  Ledger l = w.Make();
  std::string why;
  EXPECT_FALSE(l.Fits(Pod("a", {"fresh"}), w.nodes[0], &why));
  EXPECT_TRUE(l.Fits(Pod("a", {"fresh"}), w.nodes[1]));
  EXPECT_FALSE(l.Fits(Pod("b", {"held"}), w.nodes[1], &why));
  EXPECT_EQ(why, "resourceclaim held is allocated to devices of node n1");
  EXPECT_TRUE(l.Fits(Pod("b", {"held"}), w.nodes[0]));
  auto writes = l.WritesFor(Pod("b", {"held"}));
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_FALSE(writes[0].newly_allocated);
}

TEST(Ledger, ASharedClaimIsAllocatedOnceByTheFirstPodAndFreedByTheLast) {
  World w;
  w.AddNode("n1", {Gpu("gpu-0")});
  w.AddNode("n2", {Gpu("gpu-0")});
  w.AddClaim(Claim("shared"));
  Ledger l = w.Make();
  api::PodInfo a = Pod("a", {"shared"}), b = Pod("b", {"shared"});
  l.Place(a, w.nodes[1]);
  EXPECT_EQ(l.TakenCount(), 1);
  EXPECT_FALSE(l.Fits(b, w.nodes[0]));
  EXPECT_TRUE(l.Fits(b, w.nodes[1]));
  l.Place(b, w.nodes[1]);
  EXPECT_EQ(l.TakenCount(), 1);
  l.Unplace(a);
  EXPECT_EQ(l.TakenCount(), 1);
  l.Unplace(b);
  EXPECT_EQ(l.TakenCount(), 0);
}

TEST(Ledger, ASharedClaimIsWrittenOnceWithEveryPodAndFollowedByTheOthers) {
  World w;
  w.AddNode("n1", {Gpu("gpu-0")});
  w.AddClaim(Claim("shared"));
  Ledger l = w.Make();
  api::PodInfo a = Pod("a", {"shared"}), b = Pod("b", {"shared"});
  l.Place(a, w.nodes[0]);
  l.Place(b, w.nodes[0]);
  auto first = l.WritesFor(a);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_TRUE(first[0].newly_allocated);
  EXPECT_FALSE(first[0].follows);
  // Both pods are reserved by the one write that allocates the claim.
  ASSERT_EQ(first[0].reserved_for.size(), 2u);
  EXPECT_EQ(first[0].reserved_for[0].name, "a");
  EXPECT_EQ(first[0].reserved_for[1].name, "b");
  auto second = l.WritesFor(b);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_FALSE(second[0].newly_allocated);
  EXPECT_TRUE(second[0].follows);
  EXPECT_EQ(second[0].allocation, first[0].allocation);
  EXPECT_EQ(second[0].reserved_for.size(), 2u);
}

TEST(Ledger, SelectorsAndMatchAttributeChooseTheDevices) {
  World w;
  w.AddNode("n1", {Gpu("gpu-0", "a100", 0), Gpu("gpu-1", "h100", 0),
                   Gpu("gpu-2", "a100", 1), Gpu("gpu-3", "a100", 1)});
  api::ResourceClaim c = Claim(
      "pair", 2, {"device.attributes['gpu.example.com'].model == 'a100'"});
  c.constraints = {{{}, "gpu.example.com/numa"}};
  w.AddClaim(c);
  Ledger l = w.Make();
  api::PodInfo p = Pod("p", {"pair"});
  ASSERT_TRUE(l.Fits(p, w.nodes[0]));
  l.Place(p, w.nodes[0]);
  auto writes = l.WritesFor(p);
  ASSERT_EQ(writes[0].allocation.results.size(), 2u);
  // gpu-0 is an a100 but alone on its NUMA node among the a100s.
  EXPECT_EQ(writes[0].allocation.results[0].device, "gpu-2");
  EXPECT_EQ(writes[0].allocation.results[1].device, "gpu-3");
}

TEST(Ledger, FirstAvailableTakesTheFirstAlternativeThatFits) {
  World w;
  w.AddNode("n1", {Gpu("gpu-0", "a100")});
  api::ResourceClaim c = Claim("alt");
  api::DeviceChoice big{
      "big", "gpu", {"device.attributes['gpu.example.com'].model == 'h100'"}};
  api::DeviceChoice small{"small", "gpu", {}};
  c.requests[0].first_available = true;
  c.requests[0].choices = {big, small};
  w.AddClaim(c);
  Ledger l = w.Make();
  api::PodInfo p = Pod("p", {"alt"});
  l.Place(p, w.nodes[0]);
  auto writes = l.WritesFor(p);
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].allocation.results[0].request, "gpu/small");
}

TEST(Ledger, AllTakesEveryMatchingDeviceAndFailsWhenOneIsTaken) {
  World w;
  w.AddNode("n1", {Gpu("gpu-0"), Gpu("gpu-1")});
  api::ResourceClaim all = Claim("all");
  all.requests[0].choices[0].mode = api::AllocationMode::kAll;
  w.AddClaim(all);
  w.AddClaim(Claim("one"));
  Ledger l = w.Make();
  api::PodInfo one = Pod("one", {"one"});
  l.Place(one, w.nodes[0]);
  std::string why;
  EXPECT_FALSE(l.Fits(Pod("p", {"all"}), w.nodes[0], &why));
  EXPECT_EQ(why,
            "claim all, request gpu: request gpu asks for all 2 matching "
            "devices of class gpu, 1 of them allocated");
  l.Unplace(one);
  api::PodInfo p = Pod("p", {"all"});
  l.Place(p, w.nodes[0]);
  EXPECT_EQ(l.WritesFor(p)[0].allocation.results.size(), 2u);
}

TEST(Ledger, ASelectorShoalCannotCompileMakesThePodWaitNamingIt) {
  World w;
  w.AddNode("n1", {Gpu("gpu-0")});
  w.AddClaim(
      Claim("odd", 1, {"device.attributes['gpu.example.com'].model.foo()"}));
  Ledger l = w.Make();
  std::string refusal = l.Refusal(Pod("p", {"odd"}));
  EXPECT_NE(refusal.find("pod ml/p: resourceclaim ml/odd: cannot evaluate "
                         "selector `device.attributes['gpu.example.com']."
                         "model.foo()`: "),
            std::string::npos)
      << refusal;
}

TEST(Ledger, ARuntimeErrorOfASelectorIsTheNodesReason) {
  World w;
  w.AddNode("n1", {Gpu("gpu-0")});
  w.AddClaim(
      Claim("missing", 1, {"device.attributes['gpu.example.com'].healthy"}));
  Ledger l = w.Make();
  std::string why;
  EXPECT_FALSE(l.Fits(Pod("p", {"missing"}), w.nodes[0], &why));
  EXPECT_NE(why.find("cannot evaluate "
                     "`device.attributes['gpu.example.com'].healthy` for "
                     "device gpu.example.com/n1/gpu-0"),
            std::string::npos)
      << why;
}

TEST(Ledger, MissingClaimsAndClassesAreRefusedByName) {
  World w;
  w.AddNode("n1", {Gpu("gpu-0")});
  api::ResourceClaim c = Claim("nocls");
  c.requests[0].choices[0].device_class = "tpu";
  w.AddClaim(c);
  Ledger l = w.Make();
  EXPECT_EQ(l.Refusal(Pod("p", {"gone"})),
            "pod ml/p: resourceclaim \"gone\" not found");
  EXPECT_EQ(l.Refusal(Pod("p", {"nocls"})),
            "pod ml/p: resourceclaim ml/nocls: request gpu: device class tpu "
            "does not exist");
  api::PodInfo templ = Pod("t", {});
  templ.resource_claims.push_back({"gpu", "", "gpu-template"});
  EXPECT_EQ(l.Refusal(templ),
            "pod ml/t: spec.resourceClaims[0] (gpu): waiting for the claim "
            "made from template gpu-template (pod "
            "status.resourceClaimStatuses names none yet)");
}

TEST(Ledger, AnIncompletePoolOffersNothing) {
  World w;
  w.AddNode("n1", {Gpu("gpu-0")});
  w.MutableSlice(0).slice_count = 2;  // the other slice is not there yet
  w.AddClaim(Claim("c"));
  Ledger l = w.Make();
  EXPECT_FALSE(l.Fits(Pod("p", {"c"}), w.nodes[0]));
}

}  // namespace
}  // namespace shoal::dra
