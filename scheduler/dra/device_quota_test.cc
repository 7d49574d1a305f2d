#include "scheduler/dra/device_quota.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scheduler/api/resource_name.h"
#include "scheduler/dra/testing.h"

namespace shoal::dra {
namespace {

using testing::Claim;
using testing::Gpu;
using testing::Pod;
using testing::World;

api::ResourceId Id(const std::string& name) {
  return *api::InternResourceName(name);
}

api::TaskInfo Task(const api::PodInfo& pod,
                   api::TaskStatus status = api::TaskStatus::kPending) {
  api::TaskInfo t;
  t.pod = std::make_shared<api::PodInfo>(pod);
  t.status = status;
  return t;
}

class DeviceQuotaTest : public ::testing::Test {
 protected:
  DeviceQuotaTest() {
    world_.AddNode("n1", {Gpu("gpu-0"), Gpu("gpu-1"), Gpu("gpu-2")});
    world_.AddNode("n2", {Gpu("gpu-0")});
  }
  // Counts the tasks' devices, with a queue naming every resource (or, with
  // `quotas` false, none); returns the cluster's total.
  api::Resource Count(std::vector<api::TaskInfo>& tasks, bool quotas = true) {
    for (const char* name : {"deviceclass/gpu", "deviceclass/small",
                             "deviceclass/ghost", "example.com/gpu"}) {
      Id(name);
    }
    Ledger ledger(world_.devices, world_.nodes);
    api::Resource total;
    std::vector<api::ResourceId> ids;
    CountDevices(ledger.mutable_inventory(), world_.nodes,
                 std::vector<bool>(api::ResourceNameCount(), quotas), tasks,
                 total, ids);
    return total;
  }
  World world_;
};

TEST_F(DeviceQuotaTest, AClaimCountsItsCountAndTheTotalEveryDeviceOfTheClass) {
  world_.AddClaim(Claim("two", 2));
  std::vector<api::TaskInfo> tasks = {Task(Pod("p", {"two"})),
                                      Task(Pod("plain", {}))};
  api::Resource total = Count(tasks);
  EXPECT_EQ(total.Get(Id("deviceclass/gpu")), 4);
  ASSERT_NE(tasks[0].with_devices, nullptr);
  EXPECT_EQ(tasks[0].counted().Get(Id("deviceclass/gpu")), 2);
  EXPECT_EQ(tasks[1].with_devices, nullptr);
  EXPECT_EQ(&tasks[1].counted(), &tasks[1].request());
}

TEST_F(DeviceQuotaTest, WithoutAQueueNamingDevicesNothingIsCounted) {
  world_.AddClaim(Claim("two", 2));
  std::vector<api::TaskInfo> tasks = {Task(Pod("p", {"two"}))};
  api::Resource total = Count(tasks, /*quotas=*/false);
  EXPECT_EQ(tasks[0].with_devices, nullptr);
  EXPECT_EQ(total.Get(Id("deviceclass/gpu")), 0);
}

TEST_F(DeviceQuotaTest, QuotaNamesAreWhatQueuesLimitOrGuarantee) {
  api::QueueInfo q;
  q.capability.emplace();  // in place: see api::Resource::Clear
  for (int id = 0; id < api::ResourceNameCount(); ++id) {
    q.capability->Set(static_cast<api::ResourceId>(id), api::kUnlimited);
  }
  q.capability->Set(Id("deviceclass/gpu"), 4);
  api::QueueInfo g;
  g.guarantee.Set(Id("example.com/gpu"), 1);
  std::vector<bool> named = QuotaNames({q, g});
  EXPECT_TRUE(named[Id("deviceclass/gpu")]);
  EXPECT_TRUE(named[Id("example.com/gpu")]);
  EXPECT_FALSE(named[Id("deviceclass/small")]);
  EXPECT_FALSE(named[api::kCpu]);
}

TEST_F(DeviceQuotaTest, AllCountsTheMostDevicesOneNodeReaches) {
  api::ResourceClaim all = Claim("all");
  all.requests[0].choices[0].mode = api::AllocationMode::kAll;
  world_.AddClaim(all);
  std::vector<api::TaskInfo> tasks = {Task(Pod("p", {"all"}))};
  Count(tasks);
  EXPECT_EQ(tasks[0].counted().Get(Id("deviceclass/gpu")), 3);
}

TEST_F(DeviceQuotaTest, AnAllocatedClaimCountsTheAlternativeItGot) {
  api::DeviceClass small;
  small.name = "small";
  small.selectors = {"device.driver == 'gpu.example.com'"};
  world_.devices->classes["small"] = small;
  api::ResourceClaim c = Claim("either", 2);
  c.requests[0].first_available = true;
  api::DeviceChoice alt = c.requests[0].choices[0];
  alt.name = "one";
  alt.device_class = "small";
  alt.count = 1;
  c.requests[0].choices[0].name = "two";
  c.requests[0].choices.push_back(alt);
  c.allocation = api::DeviceAllocation{
      {{"gpu/one", testing::kDriver, "n2", "gpu-0"}}, {}, "n2", std::nullopt};
  world_.AddClaim(c);
  std::vector<api::TaskInfo> tasks = {
      Task(Pod("p", {"either"}), api::TaskStatus::kRunning)};
  api::Resource total = Count(tasks);
  EXPECT_EQ(tasks[0].counted().Get(Id("deviceclass/small")), 1);
  EXPECT_EQ(tasks[0].counted().Get(Id("deviceclass/gpu")), 0);
  // Both classes a claim names have their devices in the total.
  EXPECT_EQ(total.Get(Id("deviceclass/small")), 4);
  EXPECT_EQ(total.Get(Id("deviceclass/gpu")), 4);
}

TEST_F(DeviceQuotaTest, ASharedClaimCountsOnceOnThePodThatHoldsAShare) {
  world_.AddClaim(Claim("shared"));
  std::vector<api::TaskInfo> tasks = {
      Task(Pod("a", {"shared"})),
      Task(Pod("b", {"shared"}), api::TaskStatus::kRunning),
      Task(Pod("c", {"shared"}))};
  Count(tasks);
  EXPECT_EQ(tasks[0].with_devices, nullptr);
  ASSERT_NE(tasks[1].with_devices, nullptr);
  EXPECT_EQ(tasks[1].counted().Get(Id("deviceclass/gpu")), 1);
  EXPECT_EQ(tasks[2].with_devices, nullptr);
}

TEST_F(DeviceQuotaTest, AClassServingAnExtendedResourceCountsUnderItToo) {
  world_.devices->classes["gpu"].extended_resource_name = "example.com/gpu";
  world_.AddClaim(Claim("one"));
  std::vector<api::TaskInfo> tasks = {Task(Pod("p", {"one"}))};
  api::Resource total = Count(tasks);
  EXPECT_EQ(tasks[0].counted().Get(Id("deviceclass/gpu")), 1);
  EXPECT_EQ(tasks[0].counted().Get(Id("example.com/gpu")), 1);
  EXPECT_EQ(total.Get(Id("example.com/gpu")), 4);
}

TEST_F(DeviceQuotaTest, AMissingClaimOrClassCountsNothing) {
  api::ResourceClaim c = Claim("ghost-class");
  c.requests[0].choices[0].device_class = "ghost";
  world_.AddClaim(c);
  std::vector<api::TaskInfo> tasks = {Task(Pod("p", {"missing"})),
                                      Task(Pod("q", {"ghost-class"}))};
  api::Resource total = Count(tasks);
  EXPECT_EQ(tasks[0].with_devices, nullptr);
  // A claim of a class that does not exist waits (the ledger says why);
  // what it asks still counts against its queue, and the total has none.
  EXPECT_EQ(tasks[1].counted().Get(Id("deviceclass/ghost")), 1);
  EXPECT_EQ(total.Get(Id("deviceclass/ghost")), 0);
}

}  // namespace
}  // namespace shoal::dra
