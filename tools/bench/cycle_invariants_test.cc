// The safety promises on a large synthetic cluster: after a cycle no node
// is booked beyond its allocatable, every gang is bound whole or not at
// all, and every pod sits on a node its constraints allow.
#include <map>

#include "gtest/gtest.h"
#include "plugins/builtin.h"
#include "policies/default_policy.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/framework/cycle.h"
#include "tools/bench/synthetic_cluster.h"

namespace shoal::bench {
namespace {

TEST(CycleInvariantsTest, NoOverbookingNoPartialGangConstraintsHold) {
  SyntheticClusterSpec spec;
  spec.nodes = 300;
  spec.gangs = 120;
  spec.pods_per_gang = 20;
  cache::Cache cache("shoal");
  BuildSyntheticCluster(spec, cache);
  auto config =
      framework::ParseSchedulerConfig(policies::kDefaultPolicy, "default.yaml");
  auto policy = framework::BuildPolicy(*config, plugins::BuiltinPlugins(),
                                       actions::BuiltinActions());
  ASSERT_TRUE(policy.ok());
  framework::CycleOutcome out = framework::RunCycle(cache.Snapshot(), *policy);

  ASSERT_GT(out.binds.size(), 0u);
  std::map<api::JobIndex, int> bound_per_job;
  for (const auto& b : out.binds) {
    const api::TaskInfo& t = out.cluster.tasks[b.task];
    const api::NodeInfo& n = out.cluster.nodes[b.node];
    ++bound_per_job[t.job];
    EXPECT_TRUE(api::MatchesNodeSelectorAndAffinity(t.placement(),
                                                    n.spec().labels, n.name()))
        << t.pod->Key() << " on " << n.name();
    for (const auto& taint : n.spec().taints) {
      EXPECT_TRUE(api::ToleratesAll(t.placement().tolerations, taint))
          << t.pod->Key() << " on tainted " << n.name();
    }
  }
  int partial = 0, waiting = 0;
  for (api::JobIndex j = 0;
       j < static_cast<api::JobIndex>(out.cluster.jobs.size()); ++j) {
    int bound = bound_per_job[j];
    if (bound > 0 && bound < out.cluster.jobs[j].min_member) ++partial;
    if (bound == 0) ++waiting;
  }
  EXPECT_EQ(partial, 0);
  EXPECT_GT(waiting, 0) << "the cluster should be too small for every gang";
  for (const auto& n : out.cluster.nodes) {
    EXPECT_FALSE(n.idle().AnyNegative())
        << n.name() << " over-booked: " << n.idle().ToString();
  }
}

}  // namespace
}  // namespace shoal::bench
