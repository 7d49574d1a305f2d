// NodePicker with node sampling (percentageOfNodesToScore) on clusters of
// 100 nodes and more, where kube-scheduler's rule leaves nodes out.
#include "scheduler/actions/node_picker.h"

#include <map>
#include <string>

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
  // Equal empty nodes score alike, and ties go to the earlier node: each
  // job's pod goes to the first node of its window (30% of 1,000 nodes),
  // and the windows of successive jobs follow each other.
  api::ClusterBuilder b;
  AddNodes(b, 1000, [](int) { return "8"; });
  AddGang(b, "a", 1, 1, {{"cpu", "1"}});
  AddGang(b, "b", 1, 1, {{"cpu", "1"}});
  AddGang(b, "c", 1, 1, {{"cpu", "1"}});
  framework::Policy policy = MakePolicy("percentageOfNodesToScore: 30\n");
  auto out = framework::RunCycle(std::move(b).Build(), policy);
  EXPECT_EQ(Binds(out),
            (std::map<std::string, std::string>{
                {"a-0", Name(0)}, {"b-0", Name(300)}, {"c-0", Name(600)}}));
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
