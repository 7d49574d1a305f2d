// Which allocations are undone so their pods are scheduled again: devices
// reporting a binding failure, devices silent past the binding timeout,
// and a claim for a pod's extended resources pinned to a node that is
// gone; never a claim a running pod uses.
#include "scheduler/dra/stale_allocations.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "scheduler/dra/testing.h"

namespace shoal::dra {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

std::string Rfc3339(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

// Node n1; claim ml/gpu allocated gpu-0 with binding condition
// "attached" (failure condition "failed") at `allocated`, reserved for
// the pending pod ml/p that names it.
struct Reserved {
  testing::World w;
  api::ClusterInfo cluster;
  explicit Reserved(absl::Time allocated = kNow - absl::Minutes(1)) {
    w.AddNode("n1", {testing::Gpu("gpu-0")});
    api::ResourceClaim c = testing::Claim("gpu");
    api::DeviceAllocation a;
    api::DeviceResult r;
    r.request = "gpu";
    r.driver = testing::kDriver;
    r.pool = "n1";
    r.device = "gpu-0";
    r.binding_conditions = {"attached"};
    r.binding_failure_conditions = {"failed"};
    a.results = {r};
    a.node = "n1";
    a.allocated_at = Rfc3339(allocated);
    c.allocation = a;
    c.reserved_for = {{"pods", "p", "uid-p"}};
    c.resource_version = "7";
    w.AddClaim(c);
    Pending("p");
  }
  api::TaskInfo& Pending(const std::string& name) {
    auto pod = std::make_shared<api::PodInfo>(testing::Pod(name, {"gpu"}));
    api::TaskInfo t;
    t.pod = pod;
    cluster.tasks.push_back(t);
    return cluster.tasks.back();
  }
  void Reports(const std::string& condition) {
    api::DeviceStatus s;
    s.driver = testing::kDriver;
    s.pool = "n1";
    s.device = "gpu-0";
    s.conditions = {{condition, "True"}};
    w.devices->claims["ml/gpu"].device_statuses = {s};
  }
  std::vector<Deallocation> Stale() {
    cluster.nodes = w.nodes;
    cluster.devices = w.devices;
    return StaleAllocations(cluster, kNow);
  }
};

TEST(StaleAllocations, ABindingFailureConditionDeallocates) {
  Reserved r;
  r.Reports("failed");
  auto stale = r.Stale();
  ASSERT_EQ(stale.size(), 1u);
  EXPECT_EQ(stale[0].after.Key(), "ml/gpu");
  EXPECT_FALSE(stale[0].after.allocation.has_value());
  EXPECT_TRUE(stale[0].after.reserved_for.empty());
  EXPECT_TRUE(stale[0].after.device_statuses.empty());
  EXPECT_EQ(stale[0].after.resource_version, "7");  // guards the write
  EXPECT_EQ(stale[0].reason,
            "resourceclaim ml/gpu is deallocated: device gpu.example.com/n1/"
            "gpu-0 reports binding failure condition failed; its pods are "
            "scheduled again");
  EXPECT_EQ(stale[0].pods, std::vector<std::string>{"ml/p"});
}

TEST(StaleAllocations, DevicesSilentPastTheTimeoutDeallocate) {
  Reserved late(kNow - absl::Minutes(11));
  auto stale = late.Stale();
  ASSERT_EQ(stale.size(), 1u);
  EXPECT_NE(stale[0].reason.find("did not report their binding conditions "
                                 "within 10m of the allocation"),
            std::string::npos)
      << stale[0].reason;
  Reserved waiting(kNow - absl::Minutes(9));  // still within the timeout
  EXPECT_TRUE(waiting.Stale().empty());
  Reserved ready(kNow - absl::Minutes(11));  // reported in time
  ready.Reports("attached");
  EXPECT_TRUE(ready.Stale().empty());
  Reserved unstamped;  // written by a scheduler without the timestamp
  unstamped.w.devices->claims["ml/gpu"].allocation->allocated_at.clear();
  EXPECT_TRUE(unstamped.Stale().empty());
}

TEST(StaleAllocations, AClaimAPodBeyondPendingUsesIsLeftAlone) {
  Reserved r;
  r.Reports("failed");
  r.w.devices->claims["ml/gpu"].reserved_for.push_back(
      {"pods", "running", "uid-running"});
  EXPECT_TRUE(r.Stale().empty());
  Reserved bound;
  bound.Reports("failed");
  bound.cluster.tasks[0].status = api::TaskStatus::kBound;
  EXPECT_TRUE(bound.Stale().empty());  // no pending pod names it
}

TEST(StaleAllocations, AnExtendedResourceClaimOnANodeThatIsGone) {
  Reserved r;
  api::ResourceClaim& c = r.w.devices->claims["ml/gpu"];
  c.allocation->results[0].binding_conditions.clear();
  c.allocation->results[0].binding_failure_conditions.clear();
  EXPECT_TRUE(r.Stale().empty());  // an ordinary claim: its node is there
  c.allocation->node = "n9";
  EXPECT_TRUE(r.Stale().empty());  // not Shoal's to undo
  c.extended_resources = true;
  auto stale = r.Stale();
  ASSERT_EQ(stale.size(), 1u);
  EXPECT_EQ(stale[0].reason,
            "resourceclaim ml/gpu is deallocated: its devices are on node n9, "
            "which no longer exists; its pods are scheduled again");
}

}  // namespace
}  // namespace shoal::dra
