#include "scheduler/framework/node_sampling.h"

#include <vector>

#include "gtest/gtest.h"

namespace shoal::framework {
namespace {

TEST(NodesToFindTest, AdaptiveDefaultAsKubeScheduler) {
  // Under 100 nodes: every node, whatever the setting.
  EXPECT_EQ(NodesToFind(0, 0), 0u);
  EXPECT_EQ(NodesToFind(0, 99), 99u);
  EXPECT_EQ(NodesToFind(10, 99), 99u);
  // 50% less a point per 125 nodes: 1,000 nodes -> 42%.
  EXPECT_EQ(NodesToFind(0, 100), 100u);  // 50% of 100 is under the floor
  EXPECT_EQ(NodesToFind(0, 300), 144u);  // 48%
  EXPECT_EQ(NodesToFind(0, 1000), 420u);
  EXPECT_EQ(NodesToFind(0, 5000), 500u);  // 10%
  // Never under 5%: from 5,625 nodes on.
  EXPECT_EQ(NodesToFind(0, 6000), 300u);
  EXPECT_EQ(NodesToFind(0, 20000), 1000u);
}

// The six cases of kube-scheduler's TestNumFeasibleNodesToFind
// (kubernetes pkg/scheduler/schedule_one_test.go), which Volcano's
// scheduler carries too (pkg/scheduler/util/scheduler_helper_test.go):
// {percentageOfNodesToScore (0: unset), nodes, nodes to find}.
TEST(NodesToFindTest, KubeSchedulersOwnCases) {
  struct Case {
    int percentage;
    size_t nodes;
    size_t want;
  };
  for (const Case& c : std::vector<Case>{{0, 10, 10},
                                         {40, 10, 10},
                                         {0, 1000, 420},
                                         {40, 1000, 400},
                                         {0, 6000, 300},
                                         {40, 6000, 2400}}) {
    EXPECT_EQ(NodesToFind(c.percentage, c.nodes), c.want)
        << c.percentage << "% of " << c.nodes << " nodes";
  }
}

TEST(NodesToFindTest, ConfiguredPercentage) {
  EXPECT_EQ(NodesToFind(100, 20000), 20000u);
  EXPECT_EQ(NodesToFind(40, 1000), 400u);
  EXPECT_EQ(NodesToFind(40, 6000), 2400u);
  EXPECT_EQ(NodesToFind(1, 20000), 200u);
  // Never fewer than 100 nodes.
  EXPECT_EQ(NodesToFind(1, 1000), 100u);
  EXPECT_EQ(NodesToFind(5, 150), 100u);
}

TEST(NodeSamplingTest, StartMovesPastTheLastVisitedNodeAndWraps) {
  NodeSampling s(0, 1000);
  EXPECT_TRUE(s.samples());
  EXPECT_EQ(s.to_find(), 420u);
  EXPECT_EQ(s.next_start(), 0);
  s.VisitedUpTo(419);
  EXPECT_EQ(s.next_start(), 420);
  s.VisitedUpTo(999);
  EXPECT_EQ(s.next_start(), 0);
  EXPECT_FALSE(NodeSampling(100, 1000).samples());
  EXPECT_FALSE(NodeSampling(0, 50).samples());
}

}  // namespace
}  // namespace shoal::framework
