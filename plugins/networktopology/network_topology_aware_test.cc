#include "plugins/networktopology/network_topology_aware.h"

#include "gtest/gtest.h"
#include "scheduler/framework/session.h"
#include "scheduler/framework/testing.h"

namespace shoal::plugins::networktopology {
namespace {

using framework::testing::Node;
using framework::testing::Pod;

class NetworkTopologyAwareTest : public ::testing::Test {
 protected:
  NetworkTopologyAwareTest() { registry_.Add("network-topology-aware", New); }
  absl::StatusOr<framework::Policy> Build(const std::string& arguments) {
    auto config = framework::ParseSchedulerConfig(
        "actions: allocate\ntiers:\n- plugins:\n  - name: "
        "network-topology-aware\n    arguments: " +
            arguments + "\n",
        "p.yaml");
    if (!config.ok()) return config.status();
    return framework::BuildPolicy(*config, registry_, actions_);
  }
  // Two racks (label `rack`) under one spine (label `spine`), two 8-cpu
  // nodes each; rack a's first node is half used. Scores of a 1-cpu pod,
  // of a job with or without a network constraint, on each node.
  std::vector<double> Scores(
      const std::string& arguments,
      api::NetworkConstraint::Mode mode = api::NetworkConstraint::Mode::kNone) {
    auto policy = Build(arguments);
    EXPECT_TRUE(policy.ok()) << policy.status();
    api::ClusterBuilder b;
    for (const char* name : {"a0", "a1", "b0", "b1"}) {
      auto node = Node(name, {{"cpu", "8"}, {"memory", "16Gi"}});
      node->labels =
          api::Labels({{"rack", std::string(1, name[0])}, {"spine", "s"}});
      b.AddNode(node);
    }
    b.AddForeignPod("a0", framework::testing::Res({{"cpu", "4"}}));
    api::JobInfo job;
    job.network.mode = mode;
    b.AddTask(Pod("p", {{"cpu", "1"}}), b.AddJob(job));
    framework::Session s(std::move(b).Build(), *policy);
    std::vector<double> out;
    for (int n = 0; n < 4; ++n) out.push_back(s.Score(s.task(0), s.node(n)));
    return out;
  }
  framework::PluginRegistry registry_;
  framework::ActionRegistry actions_ = framework::testing::IdleActions();
};

TEST_F(NetworkTopologyAwareTest, PodsWithoutAConstraintPreferTheFullerRack) {
  std::vector<double> s = Scores("{tierLabels: [rack, spine]}");
  // Rack a holds 5 of 16 cpu once the pod is there; rack b 1 of 16; the
  // spine 5 of 32 either way. Tier 2 weighs 0.8 of tier 1.
  const double spine = 5.0 / 32;
  EXPECT_DOUBLE_EQ(s[0], 100 * (5.0 / 16 + 0.8 * spine) / 1.8);
  EXPECT_DOUBLE_EQ(s[1], s[0]);
  EXPECT_DOUBLE_EQ(s[2], 100 * (1.0 / 16 + 0.8 * spine) / 1.8);
  EXPECT_GT(s[0], s[2]);
}

TEST_F(NetworkTopologyAwareTest, SwitchesAndConstrainedJobs) {
  // Off by Volcano's switch, and for jobs that choose a domain whole.
  for (double v : Scores("{tierLabels: [rack, spine], "
                         "hypernode.binpack.normal-pod.enable: false}")) {
    EXPECT_EQ(v, 0);
  }
  for (double v :
       Scores("{tierLabels: [rack]}", api::NetworkConstraint::Mode::kHard)) {
    EXPECT_EQ(v, 0);
  }
  // Without a description of the network there is nothing to prefer.
  for (double v : Scores("{weight: 2}")) EXPECT_EQ(v, 0);
}

TEST_F(NetworkTopologyAwareTest, VolcanoArgumentsLoad) {
  auto policy = Build(
      "{weight: 2, hypernode.binpack.cpu: 1, hypernode.binpack.memory: 2, "
      "hypernode.binpack.resources: nvidia.com/gpu, "
      "hypernode.binpack.resources.nvidia.com/gpu: 5, "
      "hypernode.binpack.normal-pod.fading: 0.5, "
      "hypernode.gradient.evict.max-hypernodes: 4}");
  ASSERT_TRUE(policy.ok()) << policy.status();
  bool warned = false;
  for (const std::string& w : policy->warnings) {
    if (w.find("hypernode.gradient.evict.max-hypernodes: Shoal's preempt") !=
        std::string::npos)
      warned = true;
  }
  EXPECT_TRUE(warned);
  auto bad = Build("{weight: heavy}");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(
                "plugin network-topology-aware: arguments.weight: expected a "
                "number, got \"heavy\""),
            std::string::npos)
      << bad.status();
}

}  // namespace
}  // namespace shoal::plugins::networktopology
