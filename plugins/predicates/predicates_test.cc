#include "plugins/predicates/predicates.h"

#include "gtest/gtest.h"
#include "scheduler/framework/session.h"
#include "scheduler/framework/testing.h"

namespace shoal::plugins::predicates {
namespace {

using framework::testing::Node;
using framework::testing::Pod;

class PredicatesTest : public ::testing::Test {
 protected:
  PredicatesTest() {
    registry_.Add("predicates", New);
    policy_ = framework::testing::MustPolicy(
        "actions: allocate\ntiers:\n- plugins:\n  - name: predicates\n",
        registry_, actions_);
  }

  // Why `c` may not use `node`, or "" when it may.
  std::string Why(const api::PlacementConstraints& c,
                  std::shared_ptr<api::NodeSpec> node) {
    api::ClusterBuilder b;
    b.AddNode(node);
    framework::Session s(std::move(b).Build(), policy_);
    framework::Reasons why;
    bool ok = s.Call<framework::Predicate>(c, s.node(0), &why);
    EXPECT_EQ(ok, why.empty());
    return why.empty() ? "" : why[0];
  }

  framework::PluginRegistry registry_;
  framework::ActionRegistry actions_ = framework::testing::IdleActions();
  framework::Policy policy_;
};

TEST_F(PredicatesTest, NotReadyAndCordonedNodes) {
  api::PlacementConstraints c;
  auto node = Node("n", {{"cpu", "1"}});
  node->ready = false;
  EXPECT_EQ(Why(c, node), "node(s) were not ready");
  node->ready = true;
  node->unschedulable = true;
  EXPECT_EQ(Why(c, node), "node(s) were unschedulable");
  c.tolerations.push_back({"node.kubernetes.io/unschedulable",
                           api::Toleration::Operator::kExists, "",
                           std::nullopt});
  EXPECT_EQ(Why(c, node), "");
}

TEST_F(PredicatesTest, TaintsAgainstTolerations) {
  auto node = Node("n", {{"cpu", "1"}});
  node->taints = {{"gpu", "true", api::TaintEffect::kNoSchedule},
                  {"spot", "", api::TaintEffect::kPreferNoSchedule}};
  api::PlacementConstraints c;
  EXPECT_EQ(Why(c, node), "node(s) had untolerated taint {gpu: true}");
  c.tolerations.push_back({"gpu", api::Toleration::Operator::kEqual, "true",
                           api::TaintEffect::kNoSchedule});
  EXPECT_EQ(Why(c, node), "");  // PreferNoSchedule never filters
  node->taints.push_back({"dedicated", "ml", api::TaintEffect::kNoExecute});
  EXPECT_EQ(Why(c, node), "node(s) had untolerated taint {dedicated: ml}");
  c.tolerations = {{"", api::Toleration::Operator::kExists, "", std::nullopt}};
  EXPECT_EQ(Why(c, node), "");  // empty key + Exists tolerates everything
}

TEST_F(PredicatesTest, SelectorAndAffinity) {
  auto node = Node("n", {{"cpu", "1"}});
  node->labels = api::Labels({{"zone", "a"}, {"cores", "64"}});
  api::PlacementConstraints c;
  c.node_selector = api::Labels({{"zone", std::string("b")}});
  EXPECT_EQ(Why(c, node), "node(s) didn't match Pod's node affinity/selector");
  c.node_selector = api::Labels({{"zone", std::string("a")}});
  EXPECT_EQ(Why(c, node), "");
  api::NodeSelectorTerm t;
  t.match_expressions.push_back({"cores", api::SelectorOperator::kGt, {"100"}});
  c.required_terms = std::vector<api::NodeSelectorTerm>{t};
  EXPECT_EQ(Why(c, node), "node(s) didn't match Pod's node affinity/selector");
  c.required_terms->front().match_expressions[0].op =
      api::SelectorOperator::kLt;
  EXPECT_EQ(Why(c, node), "");
}

// The persistent volumes of a pod's bound claims (set by the cache), after
// node affinity, as kube-scheduler's VolumeBinding then VolumeZone.
TEST_F(PredicatesTest, VolumeNodeAffinityThenVolumeZone) {
  auto node = Node("node-b", {{"cpu", "1"}});
  node->labels =
      api::Labels({{"kubernetes.io/hostname", std::string("node-b")},
                   {"topology.kubernetes.io/zone", std::string("z1")}});
  api::NodeSelectorTerm on_a, on_b;
  on_a.match_fields.push_back(
      {"metadata.name", api::SelectorOperator::kIn, {"node-a"}});
  on_b.match_expressions.push_back(
      {"kubernetes.io/hostname", api::SelectorOperator::kIn, {"node-b"}});
  api::PlacementConstraints c;
  c.volume_node_affinity = {{on_a}};
  EXPECT_EQ(Why(c, node), "node(s) had volume node affinity conflict");
  c.volume_node_affinity = {{on_a, on_b}};  // one volume's terms are ORed
  EXPECT_EQ(Why(c, node), "");
  c.volume_node_affinity = {{on_a, on_b}, {on_a}};  // every volume must agree
  EXPECT_EQ(Why(c, node), "node(s) had volume node affinity conflict");
  // Node affinity is checked first and explains.
  c.node_selector = api::Labels({{"disk", std::string("ssd")}});
  EXPECT_EQ(Why(c, node), "node(s) didn't match Pod's node affinity/selector");
  c.node_selector = api::Labels();

  c.volume_node_affinity = {{on_b}};
  c.volume_zones = api::VolumeZoneTerms(
      api::Labels({{"topology.kubernetes.io/zone", std::string("z2__z3")}}));
  EXPECT_EQ(Why(c, node), "node(s) had no available volume zone");
  c.volume_zones = api::VolumeZoneTerms(
      api::Labels({{"topology.kubernetes.io/zone", std::string("z3__z1")}}));
  EXPECT_EQ(Why(c, node), "");
  // A volume's beta label against the node's GA one.
  c.volume_zones = api::VolumeZoneTerms(api::Labels(
      {{"failure-domain.beta.kubernetes.io/zone", std::string("z1")}}));
  EXPECT_EQ(Why(c, node), "");
  // A node without zone or region labels takes any volume.
  node->labels =
      api::Labels({{"kubernetes.io/hostname", std::string("node-b")}});
  c.volume_zones = api::VolumeZoneTerms(
      api::Labels({{"topology.kubernetes.io/region", std::string("eu")}}));
  EXPECT_EQ(Why(c, node), "");
  // One with only a zone label lacks the region the volume names.
  node->labels =
      api::Labels({{"kubernetes.io/hostname", std::string("node-b")},
                   {"topology.kubernetes.io/zone", std::string("z1")}});
  EXPECT_EQ(Why(c, node), "node(s) had no available volume zone");
}

TEST_F(PredicatesTest, ResourceFitNamesEveryShortage) {
  api::ClusterBuilder b;
  b.AddNode(Node("n", {{"cpu", "1"}, {"memory", "1Gi"}, {"pods", "1"}}));
  auto pod =
      Pod("p", {{"cpu", "2"}, {"memory", "512Mi"}, {"nvidia.com/gpu", "1"}});
  api::JobInfo job;
  b.AddTask(pod, b.AddJob(job));
  framework::Session s(std::move(b).Build(), policy_);
  framework::Reasons why;
  EXPECT_FALSE(s.FitsExplained(s.task(0), s.node(0), s.node(0).idle(), &why));
  EXPECT_EQ(why, (framework::Reasons{"Insufficient cpu",
                                     "Insufficient nvidia.com/gpu"}));
  s.node(0).Add(framework::testing::Res({{"pods", "1"}}),
                api::TaskStatus::kRunning);
  why.clear();
  EXPECT_FALSE(s.FitsExplained(s.task(0), s.node(0), s.node(0).idle(), &why));
  EXPECT_EQ(why, (framework::Reasons{"Insufficient cpu", "Too many pods",
                                     "Insufficient nvidia.com/gpu"}));
}

}  // namespace
}  // namespace shoal::plugins::predicates
