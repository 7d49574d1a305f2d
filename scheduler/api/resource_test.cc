#include "scheduler/api/resource.h"

#include <cmath>

#include "gtest/gtest.h"
#include "scheduler/api/resource_name.h"

namespace shoal::api {
namespace {

Resource R(std::vector<std::pair<std::string, std::string>> l) {
  return Resource::FromList(l, "test").value();
}

TEST(ResourceTest, FromListInternsAndScales) {
  Resource r =
      R({{"cpu", "1500m"}, {"memory", "1Gi"}, {"nvidia.com/gpu", "2"}});
  EXPECT_EQ(r.Get(kCpu), 1500);
  EXPECT_EQ(r.Get(kMemory), int64_t{1} << 30);
  EXPECT_EQ(r.Get(InternResourceName("nvidia.com/gpu").value()), 2);
  EXPECT_EQ(r.ToString(), "cpu: 1500m, memory: 1Gi, nvidia.com/gpu: 2");
}

TEST(ResourceTest, NegativeQuantityRefusedWithField) {
  auto s = Resource::FromList({{"memory", "-1Gi"}},
                              "spec.containers[0].resources.requests")
               .status();
  EXPECT_EQ(s.message(),
            "spec.containers[0].resources.requests.memory: must not be "
            "negative, got \"-1Gi\"");
}

TEST(ResourceTest, MalformedQuantityRefusedWithField) {
  auto s = Resource::FromList({{"cpu", "lots"}}, "status.allocatable").status();
  EXPECT_EQ(s.message(),
            "status.allocatable.cpu: quantity \"lots\" is malformed: it has no "
            "digits (expected forms like \"500m\", \"2\", \"1.5Gi\", \"2G\", "
            "\"1e3\")");
}

TEST(ResourceTest, ArithmeticAcrossDifferentLengths) {
  Resource a = R({{"cpu", "1"}});
  Resource b = R({{"cpu", "1"}, {"example.com/fpga", "3"}});
  Resource sum = a + b;
  EXPECT_EQ(sum.Get(kCpu), 2000);
  EXPECT_EQ(sum.Get(InternResourceName("example.com/fpga").value()), 3);
  EXPECT_EQ(sum - b, a);
  EXPECT_TRUE((a - b).AnyNegative());
}

TEST(ResourceTest, FitsOnlyChecksWhatIsRequested) {
  Resource request = R({{"cpu", "2"}});
  Resource idle = R({{"cpu", "2"}, {"memory", "0"}});
  EXPECT_TRUE(request.FitsIn(idle));
  Resource gpu = R({{"nvidia.com/gpu", "1"}});
  EXPECT_FALSE(gpu.FitsIn(idle));  // the node has none at all
  std::vector<std::string> reasons;
  R({{"cpu", "4"}, {"nvidia.com/gpu", "1"}, {"pods", "1"}})
      .ForEachShortage(idle, [&](ResourceId id) {
        reasons.emplace_back(InsufficientReason(id));
      });
  EXPECT_EQ(reasons,
            (std::vector<std::string>{"Insufficient cpu", "Too many pods",
                                      "Insufficient nvidia.com/gpu"}));
}

TEST(ResourceTest, FitsBesideChecksOnlyWhatIsRequestedAgainstTheSum) {
  const Resource held = R({{"cpu", "6"}, {"memory", "10Gi"}});
  const Resource limit = R({{"cpu", "8"}, {"memory", "8Gi"}});
  // Memory is over its limit already, but the task asks for cpu only.
  EXPECT_TRUE(R({{"cpu", "2"}}).FitsBeside(held, limit));
  EXPECT_FALSE(R({{"cpu", "3"}}).FitsBeside(held, limit));
  EXPECT_FALSE(R({{"cpu", "1"}, {"memory", "1Mi"}}).FitsBeside(held, limit));
  // A resource the limit does not name has a limit of zero.
  EXPECT_FALSE(R({{"nvidia.com/gpu", "1"}}).FitsBeside(held, limit));
  // The same answers as building the sum.
  for (const Resource& task :
       {R({{"cpu", "2"}}), R({{"cpu", "3"}}), R({{"memory", "1Mi"}})}) {
    EXPECT_EQ(task.FitsBeside(held, limit),
              (held + task).LessEqualWhere(limit, task));
  }
}

TEST(ResourceTest, ShareMath) {
  Resource total = R({{"cpu", "10"}, {"memory", "100Gi"}});
  EXPECT_DOUBLE_EQ(R({{"cpu", "5"}, {"memory", "10Gi"}}).DominantShare(total),
                   0.5);
  EXPECT_TRUE(std::isinf(R({{"nvidia.com/gpu", "1"}}).DominantShare(total)));
  EXPECT_DOUBLE_EQ(Resource().DominantShare(total), 0.0);
  EXPECT_EQ(total.Scaled(0.25), R({{"cpu", "2500m"}, {"memory", "25Gi"}}));
  Resource m = total;
  m.MinWith(R({{"cpu", "3"}}));
  EXPECT_EQ(m, R({{"cpu", "3"}}));
  EXPECT_TRUE(R({{"cpu", "3"}}).AllLessEqual(total));
  EXPECT_FALSE(R({{"nvidia.com/gpu", "1"}}).AllLessEqual(total));
}

TEST(ResourceTest, MaxWithEmptyClampsNegativesToZero) {
  Resource r = R({{"cpu", "1"}}) - R({{"cpu", "2"}, {"memory", "1Gi"}});
  ASSERT_TRUE(r.AnyNegative());
  r.MaxWith(Resource());
  EXPECT_TRUE(r.IsZero());
}

TEST(ResourceTest, MaxWith) {
  Resource a = R({{"cpu", "1"}, {"memory", "4Gi"}});
  a.MaxWith(R({{"cpu", "2"}, {"memory", "1Gi"}}));
  EXPECT_EQ(a, R({{"cpu", "2"}, {"memory", "4Gi"}}));
}

// Volcano's job controller writes these into PodGroup minResources
// (e2e/fixtures/volcano-v1.7/pending.yaml); none is a resource of a node.
TEST(ResourceNameTest, QuotaNamesAreNotNodeResources) {
  for (const char* name :
       {"count/pods", "count/deployments.apps", "requests.cpu",
        "requests.memory", "limits.cpu", "limits.memory",
        "requests.nvidia.com/gpu", "limits.nvidia.com/gpu", "storage",
        "services", "persistentvolumeclaims", "/gpu", "example.com/"}) {
    EXPECT_FALSE(IsNodeResourceName(name)) << name;
  }
}

TEST(ResourceNameTest, NativeAndExtendedNamesAreNodeResources) {
  for (const char* name :
       {"cpu", "memory", "pods", "ephemeral-storage", "hugepages-2Mi",
        "hugepages-1Gi", "attachable-volumes-aws-ebs", "nvidia.com/gpu",
        "amd.com/gpu", "example.com/foo", "kubernetes.io/batch-cpu"}) {
    EXPECT_TRUE(IsNodeResourceName(name)) << name;
  }
}

}  // namespace
}  // namespace shoal::api
