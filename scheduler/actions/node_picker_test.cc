// NodePicker with node sampling (percentageOfNodesToScore) on clusters of
// 100 nodes and more, where kube-scheduler's rule leaves nodes out.
#include "scheduler/actions/node_picker.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "plugins/builtin.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/framework/cycle.h"
#include "scheduler/framework/session.h"
#include "scheduler/framework/testing.h"

namespace shoal::actions {
namespace {

using framework::testing::AddGang;
using framework::testing::Node;

using framework::testing::kPlacingPolicy;

framework::Policy MakePolicy(const std::string& extra = "") {
  return framework::testing::MustPolicy(std::string(kPlacingPolicy) + extra,
                                        plugins::BuiltinPlugins(),
                                        BuiltinActions());
}

// Names in index order, so that "node order" is the order added.
std::string Name(int i) { return absl::StrFormat("n%05d", i); }

// `count` nodes of 8 cpu; `cpus(i)` overrides node i's.
template <typename Cpus>
void AddNodes(api::ClusterBuilder& b, int count, Cpus cpus) {
  for (int i = 0; i < count; ++i) {
    b.AddNode(Node(Name(i), {{"cpu", cpus(i)}, {"memory", "32Gi"}}));
  }
}

std::map<std::string, std::string> Binds(const framework::CycleOutcome& o) {
  std::map<std::string, std::string> out;
  for (const auto& b : o.binds) {
    out[o.cluster.tasks[b.task].pod->name] = o.cluster.nodes[b.node].name();
  }
  return out;
}

TEST(NodePickerTest, ScoresOnlyTheWindowOnALargeCluster) {
  for (const auto& [extra, expected] :
       std::vector<std::pair<std::string, size_t>>{
           {"", 420},  // kube-scheduler's adaptive 42% of 1,000 nodes
           {"percentageOfNodesToScore: 10\n", 100},
           {"percentageOfNodesToScore: 100\n", 1000}}) {
    api::ClusterBuilder b;
    AddNodes(b, 1000, [](int) { return "8"; });
    AddGang(b, "solo", 1, 1, {{"cpu", "1"}});
    framework::Policy policy = MakePolicy(extra);
    framework::Session s(std::move(b).Build(), policy);
    NodePicker picker(s);
    EXPECT_NE(picker.Best(s.task(0)), api::kNone) << extra;
    EXPECT_EQ(picker.nodes_scored(), expected) << extra;
  }
}

TEST(NodePickerTest, SmallClustersScoreEveryNode) {
  api::ClusterBuilder b;
  AddNodes(b, 99, [](int) { return "8"; });
  AddGang(b, "solo", 1, 1, {{"cpu", "1"}});
  framework::Policy policy = MakePolicy("percentageOfNodesToScore: 5\n");
  framework::Session s(std::move(b).Build(), policy);
  NodePicker picker(s);
  EXPECT_NE(picker.Best(s.task(0)), api::kNone);
  EXPECT_EQ(picker.nodes_scored(), 99u);
}

TEST(NodePickerTest, TaskThatFitsOnlyOutsideTheFirstWindowIsPlaced) {
  // Only the last of 1,000 nodes has room: the search scans on past the
  // first window's worth of nodes until it finds it.
  api::ClusterBuilder b;
  AddNodes(b, 1000, [](int i) { return i == 999 ? "8" : "1"; });
  AddGang(b, "big", 1, 1, {{"cpu", "4"}});
  framework::Policy policy = MakePolicy();
  auto out = framework::RunCycle(std::move(b).Build(), policy);
  EXPECT_EQ(Binds(out),
            (std::map<std::string, std::string>{{"big-0", Name(999)}}));
}

TEST(NodePickerTest, GangLargerThanTheWindowIsPlacedWhole) {
  // 300 nodes with room for one pod each; the window is 144 nodes (48%).
  // Gang "a" of 250 needs the windows after its first; "b" of 40 takes
  // 40 of the 50 nodes left; "c" of 20 then finds 10 and is placed not
  // at all (jobs go in name order here).
  api::ClusterBuilder b;
  AddNodes(b, 300, [](int) { return "4"; });
  AddGang(b, "a", 250, 250, {{"cpu", "3"}});
  AddGang(b, "b", 40, 40, {{"cpu", "3"}});
  AddGang(b, "c", 20, 20, {{"cpu", "3"}});
  framework::Policy policy = MakePolicy();
  auto out = framework::RunCycle(std::move(b).Build(), policy);
  std::map<std::string, int> per_job;
  std::map<std::string, int> per_node;
  for (const auto& [pod, node] : Binds(out)) {
    ++per_job[pod.substr(0, pod.find('-'))];
    ++per_node[node];
  }
  EXPECT_EQ(per_job, (std::map<std::string, int>{{"a", 250}, {"b", 40}}));
  EXPECT_EQ(per_node.size(), 290u);
  for (const auto& [node, pods] : per_node) EXPECT_EQ(pods, 1) << node;
}

TEST(NodePickerTest, WindowsStartWhereThePreviousStopped) {
  // Windows of 300 nodes (30% of 1,000). Jobs of one shape share a heap
  // that widens by a window for each job: "a" sees nodes 0-299 (all
  // alike: the first wins), "b" 0-599 and takes n00300, roomier than
  // those, and cannot see n00600, roomier still, which "c" (0-899) takes.
  api::ClusterBuilder b;
  AddNodes(b, 1000, [](int i) {
    return i == 300 ? "16" : i == 600 ? "32" : "8";
  });
  AddGang(b, "a", 1, 1, {{"cpu", "1"}});
  AddGang(b, "b", 1, 1, {{"cpu", "1"}});
  AddGang(b, "c", 1, 1, {{"cpu", "1"}});
  framework::Policy policy = MakePolicy("percentageOfNodesToScore: 30\n");
  auto out = framework::RunCycle(std::move(b).Build(), policy);
  EXPECT_EQ(Binds(out),
            (std::map<std::string, std::string>{
                {"a-0", Name(0)}, {"b-0", Name(300)}, {"c-0", Name(600)}}));
}

TEST(NodePickerTest, JobsOfOneShapeShareAHeap) {
  // Each growing job's picker brings one window (420 of 1,000 nodes) to
  // the shared heap until it holds every node; the fourth job scores
  // none, where a heap of its own would score a window again.
  api::ClusterBuilder b;
  AddNodes(b, 1000, [](int) { return "8"; });
  for (const char* job : {"a", "b", "c", "d"}) {
    AddGang(b, job, 1, 1, {{"cpu", "1"}});
  }
  framework::Policy policy = MakePolicy();
  framework::Session s(std::move(b).Build(), policy);
  NodePicker::Shared shared;
  std::vector<size_t> scored;
  for (api::TaskIndex t = 0; t < 4; ++t) {
    NodePicker picker(s, &shared);
    picker.ShareHeaps();
    EXPECT_NE(picker.Best(s.task(t)), api::kNone);
    scored.push_back(picker.nodes_scored());
  }
  EXPECT_EQ(scored, (std::vector<size_t>{420, 420, 160, 0}));
  EXPECT_EQ(shared.heaps.size(), 1u);

  // Without sharing, every job scores its own window.
  NodePicker alone(s, &shared);
  EXPECT_NE(alone.Best(s.task(3)), api::kNone);
  EXPECT_EQ(alone.nodes_scored(), 420u);
}

TEST(NodePickerTest, SharedHeapKeepsANodeOneJobMayNotTake) {
  // The roomier node is promised to "b": "a", asking first from the heap
  // both share, is sent to the other node, and "b" still finds its own.
  api::ClusterBuilder b;
  b.AddNode(Node("roomy", {{"cpu", "8"}, {"memory", "32Gi"}}));
  b.AddNode(Node("small", {{"cpu", "4"}, {"memory", "32Gi"}}));
  AddGang(b, "a", 1, 1, {{"cpu", "4"}});
  const api::JobIndex promised_to = AddGang(b, "b", 1, 1, {{"cpu", "4"}});
  framework::Policy policy = MakePolicy();
  api::ClusterInfo cluster = std::move(b).Build();
  policy.promises.Add({cluster.jobs[promised_to].Key(), "roomy",
                       *api::Resource::FromList({{"cpu", "8"}}, "test"),
                       absl::InfiniteFuture()});
  framework::Session s(std::move(cluster), policy);
  NodePicker::Shared shared;
  NodePicker for_a(s, &shared), for_b(s, &shared);
  for_a.ShareHeaps();
  for_b.ShareHeaps();
  EXPECT_EQ(s.node(for_a.Best(s.task(0))).name(), "small");
  EXPECT_EQ(s.node(for_b.Best(s.task(1))).name(), "roomy");
  EXPECT_EQ(shared.heaps.size(), 1u);
}

TEST(NodePickerTest, SameInputSameDecisions) {
  auto cluster = [] {
    api::ClusterBuilder b;
    AddNodes(b, 500, [](int i) { return std::to_string(2 + i % 7); });
    for (int j = 0; j < 40; ++j) {
      AddGang(b, absl::StrCat("job", j), 5, 8,
              {{"cpu", std::to_string(1 + j % 3)}});
    }
    return std::move(b).Build();
  };
  framework::Policy p1 = MakePolicy();
  framework::Policy p2 = MakePolicy();
  auto first = framework::RunCycle(cluster(), p1);
  auto second = framework::RunCycle(cluster(), p2);
  auto again = framework::RunCycle(cluster(), p1);
  EXPECT_GT(first.binds.size(), 0u);
  EXPECT_EQ(Binds(first), Binds(second));
  EXPECT_EQ(Binds(first), Binds(again));
}

}  // namespace
}  // namespace shoal::actions
