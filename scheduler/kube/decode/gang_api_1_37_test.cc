// Kubernetes 1.37's shapes of its gang API (scheduling.k8s.io v1beta1 and
// v1alpha3): PodGroups with a parent, a topology key, spec.priority and
// the object form of disruptionMode; CompositePodGroups; Workloads of
// composite templates. Read by the same decoders as 1.35's and 1.36's.
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "scheduler/kube/decode/objects.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

json LeafPodGroup() {
  return json::parse(R"({
    "apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
    "metadata": {"name": "train-aux-0", "namespace": "ml", "uid": "u1"},
    "spec": {"parentCompositePodGroupName": "train-root-0",
             "workloadRef": {"workloadName": "train", "templateName": "aux"},
             "schedulingPolicy": {"gang": {"minCount": 2}},
             "schedulingConstraints": {"topology": [
                 {"key": "topology.kubernetes.io/rack"}]},
             "priorityClassName": "high", "priority": 1000,
             "preemptionPolicy": "Never",
             "disruptionMode": {"all": {}}}})");
}

TEST(GangApi137Test, APodGroupOfATreeReadsEveryFieldItCarries) {
  DecodeWarnings said;
  auto job = DecodeKubePodGroup(LeafPodGroup(), &said);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_TRUE(said.empty()) << said[0].message;
  EXPECT_EQ(job->min_member, 2);
  EXPECT_EQ(job->parent_group, "train-root-0");
  EXPECT_EQ(job->network.mode, api::NetworkConstraint::Mode::kHard);
  EXPECT_TRUE(job->network.topology_key);
  EXPECT_EQ(job->network.highest_tier_name, "topology.kubernetes.io/rack");
  EXPECT_TRUE(job->priority_stated);
  EXPECT_EQ(job->priority, 1000);
  EXPECT_EQ(job->preemption_policy, "Never");
  EXPECT_TRUE(job->disrupted_whole);
  EXPECT_EQ(job->unsupported_field, "");
  // {single: {}}, the default, lends single pods.
  json single = LeafPodGroup();
  single["spec"]["disruptionMode"] = {{"single", json::object()}};
  EXPECT_FALSE(DecodeKubePodGroup(single, nullptr)->disrupted_whole);
}

TEST(GangApi137Test, MalformedFieldsAreRefusedByName) {
  auto error = [](const char* field, const char* value) {
    json o = LeafPodGroup();
    o["spec"][field] = json::parse(value);
    return std::string(DecodeKubePodGroup(o, nullptr).status().message());
  };
  EXPECT_EQ(error("disruptionMode", R"({"all": {}, "single": {}})"),
            "podgroup ml/train-aux-0: spec.disruptionMode: must be "
            "{single: {}} or {all: {}}, got {\"all\":{},\"single\":{}}");
  EXPECT_EQ(error("disruptionMode", R"("Sometimes")"),
            "podgroup ml/train-aux-0: spec.disruptionMode: must be Pod or "
            "PodGroup, got \"Sometimes\"");
  EXPECT_EQ(error("schedulingConstraints",
                  R"({"topology": [{"key": "rack"}, {"key": "zone"}]})"),
            "podgroup ml/train-aux-0: spec.schedulingConstraints.topology: "
            "must have at most 1 entry, got 2");
  EXPECT_EQ(error("schedulingConstraints", R"({"topology": [{"key": ""}]})"),
            "podgroup ml/train-aux-0: spec.schedulingConstraints.topology[0]"
            ".key: must be a node label key");
  EXPECT_EQ(error("preemptionPolicy", R"("Sometimes")"),
            "podgroup ml/train-aux-0: spec.preemptionPolicy: must be "
            "PreemptLowerPriority or Never, got \"Sometimes\"");
  EXPECT_EQ(error("priority", R"(2000000000)"),
            "podgroup ml/train-aux-0: spec.priority: must be at most "
            "1000000000, got 2000000000");
}

TEST(GangApi137Test, ACompositePodGroupIsReadWithItsPolicyAndParent) {
  json root = json::parse(R"({
    "apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "CompositePodGroup",
    "metadata": {"name": "train-root-0", "namespace": "ml", "uid": "c1",
                 "annotations": {"scheduling.volcano.sh/queue-name": "gpu"}},
    "spec": {"workloadRef": {"workloadName": "train", "templateName": "root"},
             "schedulingPolicy": {"gang": {"minGroupCount": 2}},
             "schedulingConstraints": {"topology": [
                 {"key": "topology.kubernetes.io/zone"}]}}})");
  ASSERT_TRUE(IsCompositePodGroup(root));
  EXPECT_FALSE(IsKubePodGroup(root));
  DecodeWarnings said;
  auto g = DecodeCompositePodGroup(root, &said);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(said.empty());
  EXPECT_EQ(g->Key(), "ml/train-root-0");
  EXPECT_EQ(g->queue, "gpu");
  EXPECT_TRUE(g->gang);
  EXPECT_EQ(g->min_group_count, 2);
  EXPECT_EQ(g->parent, "");
  EXPECT_EQ(g->network.highest_tier_name, "topology.kubernetes.io/zone");
  EXPECT_FALSE(g->priority.has_value());

  json mid = root;
  mid["spec"]["parentCompositePodGroupName"] = "train-root-0";
  mid["spec"]["schedulingPolicy"] = {{"basic", json::object()}};
  g = DecodeCompositePodGroup(mid, nullptr);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->parent, "train-root-0");
  EXPECT_FALSE(g->gang);
  EXPECT_EQ(g->min_group_count, 1);  // basic counts as one group

  json bad = root;
  bad["spec"]["schedulingPolicy"]["gang"] = {{"minCount", 2}};
  EXPECT_EQ(DecodeCompositePodGroup(bad, nullptr).status().message(),
            "compositepodgroup ml/train-root-0: "
            "spec.schedulingPolicy.gang.minGroupCount: must be >= 1, got 0");
  // A field Shoal does not know is said, and the rest read.
  json extra = root;
  extra["spec"]["schedulingPolicy"]["gang"]["timeoutSeconds"] = 30;
  ASSERT_TRUE(DecodeCompositePodGroup(extra, &said).ok());
  ASSERT_EQ(said.size(), 1u);
  EXPECT_EQ(said[0].message,
            "compositepodgroup ml/train-root-0: "
            "spec.schedulingPolicy.gang.timeoutSeconds: not a field Shoal "
            "knows; ignored");
}

TEST(GangApi137Test, AWorkloadOfCompositeTemplatesIsReadWithoutGroups) {
  json w = json::parse(R"({
    "apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload",
    "metadata": {"name": "train", "namespace": "ml"},
    "spec": {"compositePodGroupTemplates": [{"name": "root",
      "schedulingPolicy": {"gang": {"minGroupCount": 2}},
      "podGroupTemplates": [{"name": "aux",
        "schedulingPolicy": {"gang": {"minCount": 2}}}]}]}})");
  DecodeWarnings said;
  auto decoded = DecodeWorkload(w, &said);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_TRUE(said.empty());
  EXPECT_TRUE(decoded->pod_groups.empty());
  // v1beta1 templates carry what the PodGroups made from them carry.
  json flat = json::parse(R"({
    "apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload",
    "metadata": {"name": "train", "namespace": "ml"},
    "spec": {"podGroupTemplates": [{"name": "workers",
      "schedulingPolicy": {"gang": {"minCount": 4}},
      "schedulingConstraints": {"topology": [{"key": "rack"}]},
      "disruptionMode": {"all": {}}, "priority": 5}]}})");
  decoded = DecodeWorkload(flat, &said);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_TRUE(said.empty()) << said[0].message;
  EXPECT_EQ(decoded->pod_groups[0].min_count, 4);
}

}  // namespace
}  // namespace shoal::kube
