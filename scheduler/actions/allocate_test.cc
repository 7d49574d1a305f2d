// allocate and backfill with the built-in plugins, on clusters built in
// code. The end-to-end replay of the same cases from YAML lives in
// scheduler/replay_test.
#include "scheduler/actions/allocate.h"

#include <map>
#include <set>

#include "gtest/gtest.h"
#include "plugins/builtin.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/framework/cycle.h"
#include "scheduler/framework/testing.h"

namespace shoal::actions {
namespace {

using framework::testing::AddGang;
using framework::testing::Node;
using framework::testing::Pod;

using framework::testing::kPlacingPolicy;

framework::CycleOutcome RunPolicy(
    api::ClusterInfo cluster, const std::string& policy_yaml = kPlacingPolicy) {
  framework::Policy policy = framework::testing::MustPolicy(
      policy_yaml, plugins::BuiltinPlugins(), BuiltinActions());
  return framework::RunCycle(std::move(cluster), policy);
}

// A gang "mixed" of pods mixed-0, mixed-1, ... asking for these cpus, in
// that task (creation) order.
void AddMixedGang(api::ClusterBuilder& b, int min_member,
                  const std::vector<std::string>& cpus) {
  api::JobInfo job;
  job.name = "mixed";
  job.min_member = min_member;
  api::JobIndex j = b.AddJob(job);
  for (size_t i = 0; i < cpus.size(); ++i) {
    auto p = Pod("mixed-" + std::to_string(i), {{"cpu", cpus[i]}});
    p->created = absl::FromUnixSeconds(1 + i);
    b.AddTask(p, j);
  }
}

std::map<std::string, std::string> Binds(const framework::CycleOutcome& o) {
  std::map<std::string, std::string> out;
  for (const auto& b : o.binds) {
    out[o.cluster.tasks[b.task].pod->name] = o.cluster.nodes[b.node].name();
  }
  return out;
}

TEST(AllocateTest, GangAvoidsTheClassicDeadlock) {
  api::ClusterBuilder b;
  b.AddNode(Node("node-a",
                 {{"cpu", "32"}, {"memory", "64Gi"}, {"nvidia.com/gpu", "4"}}));
  b.AddNode(Node("node-b",
                 {{"cpu", "32"}, {"memory", "64Gi"}, {"nvidia.com/gpu", "4"}}));
  AddGang(b, "job-a", 6, 6, {{"cpu", "1"}, {"nvidia.com/gpu", "1"}});
  AddGang(b, "job-b", 6, 6, {{"cpu", "1"}, {"nvidia.com/gpu", "1"}});
  auto out = RunPolicy(std::move(b).Build());
  ASSERT_EQ(out.binds.size(), 6u);
  for (const auto& bind : out.binds) {
    EXPECT_EQ(out.cluster.tasks[bind.task].job, 0);  // all of job-a
  }
  const api::JobInfo& a = out.cluster.jobs[0];
  const api::JobInfo& blocked = out.cluster.jobs[1];
  EXPECT_EQ(a.phase, api::PodGroupPhase::kRunning);
  EXPECT_EQ(a.message, "");
  EXPECT_EQ(blocked.phase, api::PodGroupPhase::kInqueue);
  EXPECT_EQ(blocked.ScheduledCount(), 0);
  EXPECT_EQ(blocked.message,
            "6/6 tasks in gang unschedulable: 0/2 nodes are available: 2 "
            "Insufficient nvidia.com/gpu.");
  // Nothing of the discarded gang is left on the nodes.
  int64_t gpus = 0;
  for (const auto& n : out.cluster.nodes) {
    gpus += n.used().Get(api::InternResourceName("nvidia.com/gpu").value());
  }
  EXPECT_EQ(gpus, 6);
}

TEST(AllocateTest, HigherPriorityGangGoesFirst) {
  api::ClusterBuilder b;
  b.AddNode(Node("n", {{"cpu", "4"}}));
  AddGang(b, "low", 4, 4, {{"cpu", "1"}});
  api::JobIndex high = AddGang(b, "high", 4, 4, {{"cpu", "1"}});
  api::ClusterInfo c = std::move(b).Build();
  c.jobs[high].priority = 100;
  auto out = RunPolicy(std::move(c));
  ASSERT_EQ(out.binds.size(), 4u);
  EXPECT_EQ(out.cluster.tasks[out.binds[0].task].job, high);
}

TEST(AllocateTest, LeastRequestedSpreadsAndBinpackPacks) {
  auto cluster = [] {
    api::ClusterBuilder b;
    b.AddNode(Node("n0", {{"cpu", "8"}, {"memory", "16Gi"}}));
    b.AddNode(Node("n1", {{"cpu", "8"}, {"memory", "16Gi"}}));
    AddGang(b, "job", 1, 2, {{"cpu", "1"}, {"memory", "1Gi"}});
    return std::move(b).Build();
  };
  auto spread = Binds(RunPolicy(cluster()));
  EXPECT_NE(spread["job-0"], spread["job-1"]);
  auto packed = Binds(RunPolicy(cluster(), R"(
actions: allocate
tiers:
- plugins:
  - name: gang
  - name: predicates
  - name: binpack
    arguments: {binpack.weight: 10}
)"));
  EXPECT_EQ(packed["job-0"], packed["job-1"]);
}

TEST(AllocateTest, PodCountIsAResource) {
  api::ClusterBuilder b;
  b.AddNode(Node("tiny", {{"cpu", "8"}, {"pods", "2"}}));
  AddGang(b, "job", 3, 3, {{"cpu", "1"}});
  auto out = RunPolicy(std::move(b).Build());
  EXPECT_TRUE(out.binds.empty());
  EXPECT_EQ(out.cluster.jobs[0].message,
            "3/3 tasks in gang unschedulable: 0/1 nodes are available: 1 Too "
            "many pods.");
}

TEST(AllocateTest, ForeignPodsTakeRoom) {
  api::ClusterBuilder b;
  b.AddNode(Node("n", {{"cpu", "4"}}));
  b.AddForeignPod("n",
                  framework::testing::Res({{"cpu", "3500m"}, {"pods", "1"}}));
  AddGang(b, "job", 1, 1, {{"cpu", "1"}});
  auto out = RunPolicy(std::move(b).Build());
  EXPECT_TRUE(out.binds.empty());
  EXPECT_EQ(out.cluster.jobs[0].message,
            "1/1 tasks in gang unschedulable: 0/1 nodes are available: 1 "
            "Insufficient cpu.");
}

// A job of minMember 1 with `count` 1-cpu pods at `priority`, the first
// `running` of them running on node "n" (pod i created at second 1 + i:
// the pending ones newest).
void AddGrowingJob(api::ClusterBuilder& b, const std::string& name, int count,
                   int running, int32_t priority) {
  api::JobInfo job;
  job.ns = "default";
  job.name = name;
  job.min_member = 1;
  job.priority = priority;
  api::JobIndex j = b.AddJob(job);
  for (int i = 0; i < count; ++i) {
    auto p = Pod(name + "-" + std::to_string(i), {{"cpu", "1"}});
    p->priority = priority;
    p->created = absl::FromUnixSeconds(1 + i);
    if (i < running) {
      p->node_name = "n";
      p->status = api::TaskStatus::kRunning;
    }
    b.AddTask(p, j);
  }
}

TEST(AllocateTest, ElasticSurplusBindsWhenTheMinimumIsMet) {
  api::ClusterBuilder b;
  b.AddNode(Node("n", {{"cpu", "3"}}));
  AddGang(b, "job", 2, 5, {{"cpu", "1"}});
  auto out = RunPolicy(std::move(b).Build());
  EXPECT_EQ(out.binds.size(), 3u);
  EXPECT_EQ(out.cluster.jobs[0].phase, api::PodGroupPhase::kRunning);
}

// A running job's growth waits for the minimums of the jobs behind it,
// whatever their priority: the lone pod takes the last cpu, not the
// higher-priority job's third pod. (Were growth to go first, preempt
// would evict it again for the lone pod, cycle after cycle: property seed
// 175 under fair-share.yaml.)
TEST(AllocateTest, GrowthOfAHigherPriorityJobWaitsForALowerOnesMinimum) {
  api::ClusterBuilder b;
  b.AddNode(Node("n", {{"cpu", "3"}}));
  AddGrowingJob(b, "grower", 3, 2, 1000);
  AddGang(b, "lone", 1, 1, {{"cpu", "1"}});
  auto out = RunPolicy(std::move(b).Build());
  EXPECT_EQ(Binds(out), (std::map<std::string, std::string>{{"lone-0", "n"}}));
}

// Preempt does not evict a pod allocate placed in the same cycle (as
// Volcano, which evicts only Bound or Running pods): the elastic job's
// third pod, bound into the room the gang could not use whole, stays; the
// gang takes the two pods that were running.
TEST(AllocateTest, PreemptDoesNotEvictAPodBoundThisCycle) {
  api::ClusterBuilder b;
  b.AddNode(Node("n", {{"cpu", "4"}}));
  AddGrowingJob(b, "elastic", 3, 2, 0);
  api::JobIndex g = AddGang(b, "gang", 3, 3, {{"cpu", "1"}});
  api::ClusterInfo c = std::move(b).Build();
  c.jobs[g].priority = 1000;
  auto out = RunPolicy(std::move(c), framework::testing::kPreemptingPolicy);
  EXPECT_EQ(Binds(out),
            (std::map<std::string, std::string>{{"elastic-2", "n"}}));
  std::set<std::string> evicted;
  for (const auto& ev : out.evictions)
    evicted.insert(out.cluster.tasks[ev.task].pod->name);
  EXPECT_EQ(evicted, (std::set<std::string>{"elastic-0", "elastic-1"}));
}

TEST(BackfillTest, BestEffortPodsGoWhereThereIsASlot) {
  api::ClusterBuilder b;
  b.AddNode(Node("full", {{"cpu", "1"}, {"pods", "1"}}));
  b.AddNode(Node("roomy", {{"cpu", "1"}, {"pods", "10"}}));
  b.AddForeignPod("full", framework::testing::Res({{"pods", "1"}}));
  AddGang(b, "be", 2, 2, {});
  auto out = RunPolicy(std::move(b).Build());
  auto binds = Binds(out);
  EXPECT_EQ(binds["be-0"], "roomy");
  EXPECT_EQ(binds["be-1"], "roomy");
}

TEST(BackfillTest, WithoutBackfillBestEffortPodsWait) {
  api::ClusterBuilder b;
  b.AddNode(Node("n", {{"cpu", "1"}}));
  AddGang(b, "be", 1, 1, {});
  auto out = RunPolicy(
      std::move(b).Build(),
      "actions: allocate\ntiers:\n- plugins:\n  - name: predicates\n");
  EXPECT_TRUE(out.binds.empty());
}

TEST(EnqueueTest, WithoutEnqueueEveryJobIsConsidered) {
  api::ClusterBuilder b;
  b.AddNode(Node("n", {{"cpu", "1"}}));
  AddGang(b, "job", 1, 1, {{"cpu", "1"}});
  auto out = RunPolicy(
      std::move(b).Build(),
      "actions: allocate\ntiers:\n- plugins:\n  - name: predicates\n");
  EXPECT_EQ(out.binds.size(), 1u);
  EXPECT_EQ(out.cluster.jobs[0].phase, api::PodGroupPhase::kRunning);
}

TEST(AllocateTest, JobInMissingQueueWaitsWithAMessage) {
  api::ClusterBuilder b;
  b.AddNode(Node("n", {{"cpu", "4"}}));
  api::JobIndex j = AddGang(b, "job", 1, 1, {{"cpu", "1"}});
  api::ClusterInfo c = std::move(b).Build();
  c.jobs[j].queue = "research";
  c.jobs[j].queue_index = c.FindQueue("research");
  auto out = RunPolicy(std::move(c));
  EXPECT_TRUE(out.binds.empty());
  EXPECT_EQ(
      out.cluster.jobs[j].message,
      "queue \"research\" does not exist; create it or change spec.queue");
  EXPECT_EQ(out.cluster.jobs[j].phase, api::PodGroupPhase::kPending);
}

// Fitting requests into free room is mechanism: a kube-batch-style policy
// without the predicates plugin still never books a node past its
// allocatable (issue 12, defect 2).
TEST(AllocateTest, NoPolicyOverbooksANodeEvenWithoutPredicates) {
  api::ClusterBuilder b;
  b.AddNode(Node("small", {{"cpu", "2"}, {"memory", "8Gi"}}));
  for (int i = 0; i < 5; ++i)
    AddGang(b, "p" + std::to_string(i), 1, 1, {{"cpu", "1"}});
  auto out = RunPolicy(std::move(b).Build(), R"(
actions: "allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: drf
)");
  EXPECT_EQ(out.binds.size(), 2u);
  EXPECT_EQ(out.cluster.jobs[4].message,
            "1/1 tasks in gang unschedulable: 0/1 nodes are available: 1 "
            "Insufficient cpu.");
}

// A pod that fits nowhere does not end the gang's turn while the rest can
// still reach minMember (as Volcano's allocate: issue 12, defect 4).
TEST(AllocateTest, GangSkipsAPodThatFitsNowhereWhileItsMinimumIsReachable) {
  api::ClusterBuilder b;
  b.AddNode(Node("n", {{"cpu", "4"}, {"memory", "8Gi"}}));
  AddMixedGang(b, 2, {"8", "1", "1"});  // mixed-0 comes first and fits nowhere
  auto out = RunPolicy(std::move(b).Build());
  EXPECT_EQ(Binds(out), (std::map<std::string, std::string>{{"mixed-1", "n"},
                                                            {"mixed-2", "n"}}));
  EXPECT_EQ(out.cluster.jobs[0].phase, api::PodGroupPhase::kRunning);
}

// Once too few pods are left to reach minMember, the gang is undone.
TEST(AllocateTest, GangGivesUpWhenItsMinimumIsOutOfReach) {
  api::ClusterBuilder b;
  b.AddNode(Node("n", {{"cpu", "4"}, {"memory", "8Gi"}}));
  AddMixedGang(b, 3, {"1", "8", "1"});
  auto out = RunPolicy(std::move(b).Build());
  EXPECT_TRUE(out.binds.empty());
  EXPECT_EQ(out.cluster.jobs[0].message,
            "3/3 tasks in gang unschedulable: 0/1 nodes are available: 1 "
            "Insufficient cpu.");
}

// Three 1-cpu pods placed first (the tiers' order) take the big node's
// pod slots the 6-cpu pod needed; packed largest first, each on the node
// it fits most tightly, the whole gang fits.
TEST(AllocateTest, UnequalGangIsRetriedAsABinPacker) {
  api::ClusterBuilder b;
  b.AddNode(Node("a-big", {{"cpu", "8"}, {"memory", "8Gi"}, {"pods", "2"}}));
  b.AddNode(Node("b-small", {{"cpu", "2"}, {"memory", "8Gi"}, {"pods", "10"}}));
  AddMixedGang(b, 4, {"1", "1", "1", "6"});
  auto out = RunPolicy(std::move(b).Build());
  std::map<std::string, std::string> binds = Binds(out);
  ASSERT_EQ(binds.size(), 4u);
  EXPECT_EQ(binds["mixed-3"], "a-big");
  std::map<std::string, int> per_node;
  for (const auto& [pod, node] : binds) ++per_node[node];
  EXPECT_EQ(per_node,
            (std::map<std::string, int>{{"a-big", 2}, {"b-small", 2}}));
}

}  // namespace
}  // namespace shoal::actions
