#include "plugins/nodeorder/nodeorder.h"

#include "gtest/gtest.h"
#include "scheduler/framework/session.h"
#include "scheduler/framework/testing.h"

namespace shoal::plugins::nodeorder {
namespace {

using framework::testing::Node;
using framework::testing::Pod;

class NodeOrderTest : public ::testing::Test {
 protected:
  NodeOrderTest() {
    registry_.Add("nodeorder", New);
    registry_.Add("binpack", NewBinpack);
  }
  absl::StatusOr<framework::Policy> Build(const std::string& plugin_yaml) {
    auto config = framework::ParseSchedulerConfig(
        "actions: allocate\ntiers:\n- plugins:\n" + plugin_yaml, "p.yaml");
    if (!config.ok()) return config.status();
    return framework::BuildPolicy(*config, registry_, actions_);
  }
  // Scores of an empty node and a half-used node (cpu 8, memory 16Gi) for
  // a pod asking 1 cpu and 1Gi.
  std::pair<double, double> Scores(const std::string& plugin_yaml) {
    auto policy = Build(plugin_yaml);
    EXPECT_TRUE(policy.ok()) << policy.status();
    api::ClusterBuilder b;
    b.AddNode(Node("empty", {{"cpu", "8"}, {"memory", "16Gi"}}));
    b.AddNode(Node("half", {{"cpu", "8"}, {"memory", "16Gi"}}));
    b.AddForeignPod("half",
                    framework::testing::Res({{"cpu", "4"}, {"memory", "8Gi"}}));
    api::JobInfo job;
    b.AddTask(Pod("p", {{"cpu", "1"}, {"memory", "1Gi"}}), b.AddJob(job));
    framework::Session s(std::move(b).Build(), *policy);
    return {s.Score(s.task(0), s.node(0)), s.Score(s.task(0), s.node(1))};
  }
  framework::PluginRegistry registry_;
  framework::ActionRegistry actions_ = framework::testing::IdleActions();
};

TEST_F(NodeOrderTest, LeastRequestedPrefersTheEmptyNode) {
  auto [empty, half] = Scores(
      "  - name: nodeorder\n    arguments: {balancedresource.weight: 0, "
      "nodeaffinity.weight: 0, tainttoleration.weight: 0}\n");
  // Average of cpu and memory left free once the pod is placed.
  EXPECT_DOUBLE_EQ(empty, 100 * ((1 - 1.0 / 8) + (1 - 1.0 / 16)) / 2);
  EXPECT_DOUBLE_EQ(half, 100 * ((1 - 5.0 / 8) + (1 - 9.0 / 16)) / 2);
}

TEST_F(NodeOrderTest, MostRequestedAndBinpackPreferTheFullerNode) {
  auto [e1, h1] = Scores(
      "  - name: nodeorder\n    arguments: {leastrequested.weight: 0, "
      "mostrequested.weight: 1, balancedresource.weight: 0, "
      "nodeaffinity.weight: 0, tainttoleration.weight: 0}\n");
  EXPECT_GT(h1, e1);
  auto [e2, h2] =
      Scores("  - name: binpack\n    arguments: {binpack.weight: 2}\n");
  EXPECT_DOUBLE_EQ(h2, 2 * 100 * (5.0 / 8 + 9.0 / 16) / 2);
  EXPECT_GT(h2, e2);
}

TEST_F(NodeOrderTest, PerResourceWeights) {
  // Memory weighted 3:1 over cpu in least-requested.
  auto [empty, half] = Scores(
      "  - name: nodeorder\n    arguments:\n      balancedresource.weight: 0\n"
      "      nodeaffinity.weight: 0\n      tainttoleration.weight: 0\n"
      "      resources: {cpu: 1, memory: 3}\n");
  EXPECT_DOUBLE_EQ(empty, 100 * (1 * (7.0 / 8) + 3 * (1 - 1.0 / 16)) / 4);
  EXPECT_LT(half, empty);
}

TEST_F(NodeOrderTest, BadArgumentsAreRefused) {
  EXPECT_EQ(
      Build(
          "  - name: nodeorder\n    arguments: {leastrequested.weight: lots}\n")
          .status()
          .message(),
      "p.yaml:4: plugin nodeorder: arguments.leastrequested.weight: "
      "expected a number, got \"lots\"");
  EXPECT_EQ(Build("  - name: binpack\n    arguments: {binpack.cpu: -1}\n")
                .status()
                .message(),
            "p.yaml:4: plugin binpack: arguments.binpack.cpu: must not be "
            "negative, got -1");
}

TEST_F(NodeOrderTest, VolcanoArgumentsShoalDoesNotUseAreReported) {
  auto policy =
      Build("  - name: nodeorder\n    arguments: {imagelocality.weight: 2}\n");
  ASSERT_TRUE(policy.ok());
  ASSERT_EQ(policy->warnings.size(), 1u);
  EXPECT_EQ(
      policy->warnings[0],
      "p.yaml:4: plugin nodeorder: argument \"imagelocality.weight\" is not "
      "used by Shoal; ignored");
}

}  // namespace
}  // namespace shoal::plugins::nodeorder
