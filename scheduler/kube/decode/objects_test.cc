#include "scheduler/kube/decode/objects.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/api/resource_name.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

// The decoders, for tests that do not look at the warnings.
absl::StatusOr<DecodedPod> DecodePod(const json& obj) {
  return kube::DecodePod(obj, nullptr);
}
absl::StatusOr<api::JobInfo> DecodePodGroup(const json& obj) {
  return kube::DecodePodGroup(obj, nullptr);
}
absl::StatusOr<api::QueueInfo> DecodeQueue(const json& obj) {
  return kube::DecodeQueue(obj, nullptr);
}

std::vector<std::string> Messages(const DecodeWarnings& warnings) {
  std::vector<std::string> out;
  for (const auto& w : warnings) out.push_back(w.message);
  return out;
}

json Pod(json spec, json meta = json::object()) {
  meta["name"] = "w-0";
  meta["namespace"] = "team-a";
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", meta},
          {"spec", spec}};
}

json Container(json requests, json limits = nullptr) {
  json res = {{"requests", requests}};
  if (!limits.is_null()) res["limits"] = limits;
  return {{"name", "c"}, {"resources", res}};
}

TEST(DecodePodTest, RequestIsWhatKubeSchedulerCounts) {
  json spec = {
      {"schedulerName", "shoal"},
      {"containers",
       {Container({{"cpu", "1"}, {"memory", "1Gi"}}),
        Container({{"cpu", "500m"}})}},
      {"initContainers", {Container({{"cpu", "2"}, {"memory", "512Mi"}})}},
      {"overhead", {{"cpu", "100m"}}}};
  auto pod = DecodePod(Pod(spec));
  ASSERT_TRUE(pod.ok()) << pod.status();
  const api::Resource& r = pod->pod->request;
  EXPECT_EQ(r.Get(api::kCpu), 2100);        // init 2 > 1.5, + overhead
  EXPECT_EQ(r.Get(api::kMemory), 1 << 30);  // containers 1Gi > init
  EXPECT_EQ(r.Get(api::kPods), 1);
}

TEST(DecodePodTest, SidecarsAddToContainersAndLaterInits) {
  json sidecar = Container({{"cpu", "1"}});
  sidecar["restartPolicy"] = "Always";
  json spec = {{"containers", {Container({{"cpu", "1"}})}},
               {"initContainers", {sidecar, Container({{"cpu", "3"}})}}};
  auto pod = DecodePod(Pod(spec));
  ASSERT_TRUE(pod.ok()) << pod.status();
  // max(containers 1 + sidecar 1, init 3 + sidecar 1) = 4
  EXPECT_EQ(pod->pod->request.Get(api::kCpu), 4000);
}

TEST(DecodePodTest, LimitsStandInForMissingRequests) {
  json spec = {
      {"containers",
       {Container({{"cpu", "1"}}, {{"cpu", "2"}, {"nvidia.com/gpu", "1"}})}}};
  auto pod = DecodePod(Pod(spec));
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->pod->request.Get(api::kCpu), 1000);
  EXPECT_EQ(pod->pod->request.Get(*api::InternResourceName("nvidia.com/gpu")),
            1);
}

// Volcano reads the role from the annotation, then the label its job
// controller also writes; and volcano.sh/preemptable the same way,
// unmarked meaning preemptable (issue 12, defects 5 and 6).
TEST(DecodePodTest, RoleAndPreemptableFromAnnotationThenLabel) {
  json spec = {{"containers", {Container({{"cpu", "1"}})}}};
  json by_label = {{"labels",
                    {{"volcano.sh/task-spec", "worker"},
                     {"volcano.sh/preemptable", "false"}}}};
  auto pod = DecodePod(Pod(spec, by_label));
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->pod->role, "worker");
  EXPECT_FALSE(pod->pod->preemptable);
  json both = {
      {"labels",
       {{"volcano.sh/task-spec", "worker"},
        {"volcano.sh/preemptable", "false"}}},
      {"annotations",
       {{"volcano.sh/task-spec", "ps"}, {"volcano.sh/preemptable", "true"}}}};
  pod = DecodePod(Pod(spec, both));
  EXPECT_EQ(pod->pod->role, "ps");
  EXPECT_TRUE(pod->pod->preemptable);
  pod = DecodePod(Pod(spec, json::object()));
  EXPECT_EQ(pod->pod->role, "");
  EXPECT_TRUE(pod->pod->preemptable);
  EXPECT_FALSE(pod->pod->preemption_policy_set);
  json garbled = {{"annotations", {{"volcano.sh/preemptable", "maybe"}}}};
  EXPECT_FALSE(DecodePod(Pod(spec, garbled))
                   ->pod->preemptable);  // safe side, as Volcano
}

// Inter-pod affinity, anti-affinity and spread are read into the pod's
// rules: selectors (matchLabelKeys folded in), namespaces, weights.
TEST(DecodePodTest, ReadsInterPodRules) {
  json spec = {
      {"containers", {Container({{"cpu", "1"}})}},
      {"affinity",
       {{"podAntiAffinity",
         {{"requiredDuringSchedulingIgnoredDuringExecution",
           json::array(
               {{{"labelSelector", {{"matchLabels", {{"app", "train"}}}}},
                 {"matchLabelKeys", json::array({"job"})},
                 {"topologyKey", "kubernetes.io/hostname"}}})}}},
        {"podAffinity",
         {{"preferredDuringSchedulingIgnoredDuringExecution",
           json::array(
               {{{"weight", 30},
                 {"podAffinityTerm",
                  {{"labelSelector",
                    {{"matchExpressions",
                      json::array(
                          {{{"key", "role"}, {"operator", "Exists"}}})}}},
                   {"namespaceSelector", json::object()},
                   {"topologyKey", "topology.kubernetes.io/zone"}}}}})}}}}},
      {"topologySpreadConstraints",
       json::array({{{"maxSkew", 2},
                     {"topologyKey", "topology.kubernetes.io/zone"},
                     {"whenUnsatisfiable", "ScheduleAnyway"},
                     {"labelSelector", {{"matchLabels", {{"app", "train"}}}}},
                     {"nodeTaintsPolicy", "Honor"}}})}};
  json meta = {{"labels", {{"app", "train"}, {"job", "j1"}}}};
  auto pod = DecodePod(Pod(spec, meta));
  ASSERT_TRUE(pod.ok()) << pod.status();
  const api::InterPodRules& r = *pod->pod->inter_pod;
  ASSERT_EQ(r.required_anti_affinity.size(), 1u);
  const api::PodAffinityTerm& anti = r.required_anti_affinity[0];
  EXPECT_EQ(anti.topology_key, "kubernetes.io/hostname");
  EXPECT_EQ(anti.namespaces.names,
            std::vector<std::string>{"team-a"});  // the pod's own
  ASSERT_EQ(anti.selector.requirements.size(), 2u);
  EXPECT_EQ(anti.selector.requirements[1].key,
            "job");  // matchLabelKeys: job In (j1)
  EXPECT_EQ(anti.selector.requirements[1].values,
            std::vector<std::string>{"j1"});
  ASSERT_EQ(r.preferred_affinity.size(), 1u);
  EXPECT_EQ(r.preferred_affinity[0].weight, 30);
  EXPECT_TRUE(
      r.preferred_affinity[0].namespaces.Contains("elsewhere", nullptr));
  ASSERT_EQ(r.spread.size(), 1u);
  EXPECT_FALSE(r.spread[0].do_not_schedule);
  EXPECT_EQ(r.spread[0].max_skew, 2);
  EXPECT_TRUE(r.spread[0].honor_taints);
  EXPECT_TRUE(r.spread[0].honor_node_affinity);
  EXPECT_EQ(pod->pod->unsupported_field, "");
}

// Bad rules are refused naming the pod and the field.
TEST(DecodePodTest, RefusesBadInterPodRules) {
  auto error = [](json extra) {
    json spec = {{"containers", {Container({{"cpu", "1"}})}}};
    spec.update(extra);
    auto pod = DecodePod(Pod(spec, json::object()));
    return pod.ok() ? std::string("accepted")
                    : std::string(pod.status().message());
  };
  EXPECT_EQ(error({{"topologySpreadConstraints",
                    json::array({{{"maxSkew", 0},
                                  {"topologyKey", "zone"},
                                  {"whenUnsatisfiable", "DoNotSchedule"}}})}}),
            "pod team-a/w-0: spec.topologySpreadConstraints[0].maxSkew: must "
            "be at least 1, got 0");
  EXPECT_EQ(error({{"topologySpreadConstraints",
                    json::array({{{"maxSkew", 1},
                                  {"topologyKey", "zone"},
                                  {"whenUnsatisfiable", "Sometimes"}}})}}),
            "pod team-a/w-0: "
            "spec.topologySpreadConstraints[0].whenUnsatisfiable: must be "
            "DoNotSchedule or ScheduleAnyway, got \"Sometimes\"");
  EXPECT_EQ(
      error({{"affinity",
              {{"podAntiAffinity",
                {{"requiredDuringSchedulingIgnoredDuringExecution",
                  json::array({{{"labelSelector", json::object()}}})}}}}}}),
      "pod team-a/w-0: "
      "spec.affinity.podAntiAffinity."
      "requiredDuringSchedulingIgnoredDuringExecution[0]"
      ".topologyKey: is required");
  EXPECT_EQ(error({{"affinity",
                    {{"podAffinity",
                      {{"preferredDuringSchedulingIgnoredDuringExecution",
                        json::array({{{"weight", 0}}})}}}}}}),
            "pod team-a/w-0: "
            "spec.affinity.podAffinity."
            "preferredDuringSchedulingIgnoredDuringExecution[0]"
            ".weight: must be 1 to 100, got 0");
}

// Fields that bear on placement and that Shoal does not implement yet are
// named, never dropped; scheduling gates are read (nothing is ignored
// silently: issue 9).
TEST(DecodePodTest, NamesWhatShoalDoesNotImplement) {
  auto field = [](json spec) {
    spec["containers"] = {Container({{"cpu", "1"}})};
    auto pod = DecodePod(Pod(spec, json::object()));
    EXPECT_TRUE(pod.ok()) << pod.status();
    return pod.ok() ? pod->pod->unsupported_field : "?";
  };
  EXPECT_EQ(field(json::object()), "");
  // Claims are honoured now (DRA): a claim is no unsupported field.
  EXPECT_EQ(
      field(
          {{"resourceClaims",
            json::array({{{"name", "gpu"}, {"resourceClaimName", "gpu-0"}}})}}),
      "");
  EXPECT_EQ(
      field({{"workloadRef", {{"name", "job"}, {"podGroup", "workers"}}}}), "");
  EXPECT_EQ(field({{"schedulingGroup", {{"podGroupName", "workers"}}}}), "");
  EXPECT_EQ(field({{"resources", {{"requests", {{"cpu", "2"}}}}}}),
            "spec.resources");
  // Known fields with no bearing on placement, and empty ones, are not.
  EXPECT_EQ(field({{"restartPolicy", "Never"},
                   {"runtimeClassName", "gvisor"},
                   {"resourceClaims", json::array()},
                   {"workloadRef", nullptr}}),
            "");
  EXPECT_EQ(field({{"volumes",
                    json::array({{{"name", "v"}, {"emptyDir", json::object()}},
                                 {{"name", "d"},
                                  {"persistentVolumeClaim",
                                   {{"claimName", "data"}}}}})}}),
            "");  // claims are implemented (volumes_test.cc)
  EXPECT_EQ(
      field(
          {{"initContainers",
            json::array({{{"name", "i"},
                          {"ports", json::array({{{"hostPort", 29500}}})}}})}}),
      "");  // host ports are implemented
  json gated = {{"containers", {Container({{"cpu", "1"}})}},
                {"schedulingGates",
                 json::array({{{"name", "kueue.x-k8s.io/admission"}}})}};
  auto pod = DecodePod(Pod(gated, json::object()));
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->pod->scheduling_gates,
            std::vector<std::string>{"kueue.x-k8s.io/admission"});
  gated["schedulingGates"] = "x";
  EXPECT_EQ(DecodePod(Pod(gated, json::object())).status().message(),
            "pod team-a/w-0: spec.schedulingGates: must be a list");
}

// Host ports of every container, init containers included; with
// hostNetwork every container port is one (kube-scheduler's NodePorts).
TEST(DecodePodTest, HostPorts) {
  json spec = {{"containers", {Container({{"cpu", "1"}})}}};
  spec["containers"][0]["ports"] = json::array({{{"containerPort", 8080}},
                                                {{"containerPort", 29500},
                                                 {"hostPort", 29500},
                                                 {"protocol", "UDP"},
                                                 {"hostIP", "10.0.0.1"}}});
  spec["initContainers"] = json::array(
      {{{"name", "sidecar"},
        {"restartPolicy", "Always"},
        {"ports", json::array({{{"hostPort", 80}}})}},
       // An ordinary init container has exited before the pod runs: its
       // port is not counted (kube-scheduler's NodePorts test).
       {{"name", "init"}, {"ports", json::array({{{"hostPort", 81}}})}}});
  auto pod = DecodePod(Pod(spec));
  ASSERT_TRUE(pod.ok()) << pod.status();
  ASSERT_EQ(pod->pod->host_ports.size(), 2u);
  EXPECT_EQ(pod->pod->host_ports[0], (api::HostPort{"", "TCP", 80}));
  EXPECT_EQ(pod->pod->host_ports[1], (api::HostPort{"10.0.0.1", "UDP", 29500}));
  spec["hostNetwork"] = true;
  pod = DecodePod(Pod(spec));
  ASSERT_EQ(pod->pod->host_ports.size(), 3u);
  EXPECT_EQ(pod->pod->host_ports[1], (api::HostPort{"", "TCP", 8080}));
  spec["containers"][0]["ports"][0]["hostPort"] = 70000;
  EXPECT_EQ(DecodePod(Pod(spec)).status().message(),
            "pod team-a/w-0: spec.containers[0].ports[0].hostPort: must be 1 "
            "to 65535, got 70000");
  // Conflicts as kube-scheduler sees them.
  api::HostPort any{"", "TCP", 29500}, one{"10.0.0.1", "TCP", 29500},
      other{"10.0.0.2", "TCP", 29500};
  EXPECT_TRUE(any.ConflictsWith(one));
  EXPECT_FALSE(one.ConflictsWith(other));
  EXPECT_FALSE(any.ConflictsWith(api::HostPort{"", "UDP", 29500}));
}

TEST(DecodePodTest, GroupRoleStatusAndPlacement) {
  json spec = {{"containers", {Container({{"cpu", "1"}})}},
               {"nodeSelector", {{"zone", "a"}}},
               {"tolerations", {{{"key", "gpu"}, {"operator", "Exists"}}}},
               {"affinity",
                {{"nodeAffinity",
                  {{"requiredDuringSchedulingIgnoredDuringExecution",
                    {{"nodeSelectorTerms",
                      {{{"matchExpressions",
                         {{{"key", "cores"},
                           {"operator", "Gt"},
                           {"values", {"16"}}}}}}}}}}}}}},
               {"priority", 100},
               {"preemptionPolicy", "Never"}};
  json meta = {{"annotations",
                {{"scheduling.k8s.io/group-name", "tf"},
                 {"volcano.sh/task-spec", "ps"}}}};
  auto pod = DecodePod(Pod(spec, meta));
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->pod->group, "tf");
  EXPECT_EQ(pod->pod->role, "ps");
  EXPECT_TRUE(pod->has_priority);
  EXPECT_EQ(pod->pod->priority, 100);
  EXPECT_TRUE(pod->pod->preempt_never);
  EXPECT_EQ(pod->pod->status, api::TaskStatus::kPending);
  const auto& c = *pod->pod->placement;
  EXPECT_EQ(*c.node_selector.Find("zone"), "a");
  ASSERT_TRUE(c.required_terms.has_value());
  EXPECT_EQ(c.required_terms->at(0).match_expressions[0].op,
            api::SelectorOperator::kGt);
  EXPECT_EQ(c.tolerations[0].op, api::Toleration::Operator::kExists);

  json sp_meta = {{"labels", {{"scheduling.x-k8s.io/pod-group", "sp"}}}};
  auto sp = DecodePod(Pod(spec, sp_meta));
  EXPECT_EQ(sp->pod->group, "sp");
}

TEST(DecodePodTest, StatusFromPhaseNodeAndDeletion) {
  json spec = {{"containers", {Container({{"cpu", "1"}})}}, {"nodeName", "n1"}};
  json obj = Pod(spec);
  obj["status"] = {{"phase", "Running"}};
  EXPECT_EQ(DecodePod(obj)->pod->status, api::TaskStatus::kRunning);
  obj["status"] = {{"phase", "Pending"}};
  EXPECT_EQ(DecodePod(obj)->pod->status, api::TaskStatus::kBound);
  obj["metadata"]["deletionTimestamp"] = "2026-11-20T10:00:00Z";
  EXPECT_EQ(DecodePod(obj)->pod->status, api::TaskStatus::kReleasing);
  obj["status"] = {{"phase", "Succeeded"}};
  EXPECT_EQ(DecodePod(obj)->pod->status, api::TaskStatus::kSucceeded);
}

TEST(DecodePodTest, RefusalsNameObjectAndField) {
  auto msg = [](json spec) {
    return std::string(DecodePod(Pod(spec)).status().message());
  };
  EXPECT_EQ(
      msg({{"containers", json::array()}}),
      "pod team-a/w-0: spec.containers: must list at least one container");
  EXPECT_EQ(msg({{"containers", {Container({{"cpu", "one"}})}}}),
            "pod team-a/w-0: spec.containers[0].resources.requests.cpu: "
            "quantity \"one\" is "
            "malformed: it has no digits (expected forms like \"500m\", \"2\", "
            "\"1.5Gi\", \"2G\", \"1e3\")");
  EXPECT_EQ(msg({{"containers", {Container({{"memory", "-1Gi"}})}}}),
            "pod team-a/w-0: spec.containers[0].resources.requests.memory: "
            "must not be negative, got \"-1Gi\"");
  EXPECT_EQ(
      msg({{"containers", {Container({{"cpu", "1"}})}}, {"priority", "high"}}),
      "pod team-a/w-0: spec.priority: must be a whole number, got \"high\"");
  EXPECT_EQ(msg({{"containers", {Container({{"cpu", "1"}})}},
                 {"tolerations", {{{"key", "a"}, {"operator", "Matches"}}}}}),
            "pod team-a/w-0: spec.tolerations[0].operator: unknown operator "
            "\"Matches\" (valid: Equal, Exists)");
  EXPECT_EQ(DecodePod({{"kind", "Pod"}, {"metadata", {{"namespace", "x"}}}})
                .status()
                .message(),
            "pod without a name: metadata.name is required");
}

TEST(DecodeNodeTest, FieldsAndReadiness) {
  json node = {
      {"kind", "Node"},
      {"metadata", {{"name", "n1"}, {"labels", {{"zone", "a"}}}}},
      {"spec",
       {{"unschedulable", true},
        {"taints",
         {{{"key", "gpu"}, {"value", "true"}, {"effect", "NoSchedule"}}}}}},
      {"status",
       {{"allocatable", {{"cpu", "3500m"}, {"memory", "7Gi"}, {"pods", 110}}},
        {"conditions", {{{"type", "Ready"}, {"status", "False"}}}}}}};
  auto n = DecodeNode(node);
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ((*n)->allocatable.Get(api::kCpu), 3500);
  EXPECT_EQ((*n)->allocatable.Get(api::kPods), 110);
  EXPECT_TRUE((*n)->unschedulable);
  EXPECT_FALSE((*n)->ready);
  EXPECT_EQ((*n)->taints[0].key, "gpu");
  node["spec"]["taints"][0]["effect"] = "Sometimes";
  EXPECT_EQ(DecodeNode(node).status().message(),
            "node n1: spec.taints[0].effect: unknown effect \"Sometimes\" "
            "(valid: NoSchedule, "
            "PreferNoSchedule, NoExecute)");
}

TEST(DecodePodGroupTest, BothApiGroups) {
  json vc = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
             {"kind", "PodGroup"},
             {"metadata", {{"name", "resnet"}, {"namespace", "team-a"}}},
             {"spec",
              {{"minMember", 4},
               {"queue", "gpu"},
               {"minTaskMember", {{"ps", 1}}},
               {"minResources", {{"nvidia.com/gpu", "4"}}}}},
             {"status", {{"phase", "Inqueue"}}}};
  auto j = DecodePodGroup(vc);
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ(j->min_member, 4);
  EXPECT_EQ(j->queue, "gpu");
  EXPECT_EQ(j->min_task_member.at("ps"), 1);
  EXPECT_EQ(j->phase, api::PodGroupPhase::kInqueue);
  EXPECT_EQ(j->source, api::GroupSource::kVolcano);
  json sp = {{"apiVersion", "scheduling.x-k8s.io/v1alpha1"},
             {"kind", "PodGroup"},
             {"metadata", {{"name", "sp"}, {"namespace", "team-b"}}},
             {"spec", {{"minMember", 3}}}};
  auto s = DecodePodGroup(sp);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->queue, "default");
  EXPECT_EQ(s->source, api::GroupSource::kSchedulerPlugins);
  vc["spec"]["minMember"] = 0;  // legal: no gang minimum
  EXPECT_EQ(DecodePodGroup(vc)->min_member, 0);
  vc["spec"]["minMember"] = -1;
  EXPECT_EQ(DecodePodGroup(vc).status().message(),
            "podgroup team-a/resnet: spec.minMember: must be >= 0, got -1");
}

TEST(DecodeQueueTest, FieldsAndRefusals) {
  json q = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
            {"kind", "Queue"},
            {"metadata", {{"name", "research"}}},
            {"spec",
             {{"weight", 2},
              {"reclaimable", false},
              {"capability", {{"cpu", "100"}}},
              {"guarantee", {{"resource", {{"cpu", "10"}}}}}}},
            {"status", {{"state", "Closed"}}}};
  auto d = DecodeQueue(q);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->weight, 2);
  EXPECT_FALSE(d->reclaimable);
  EXPECT_FALSE(d->open);
  EXPECT_EQ(d->capability->Get(api::kCpu), 100000);
  EXPECT_EQ(d->guarantee.Get(api::kCpu), 10000);
  EXPECT_EQ(d->capability->Get(api::kMemory), api::kUnlimited);  // not named
  q["spec"]["weight"] = -1;
  EXPECT_EQ(DecodeQueue(q).status().message(),
            "queue research: spec.weight: must be >= 1, got -1");
}

TEST(DecodePriorityClassTest, Value) {
  auto pc = DecodePriorityClass({{"kind", "PriorityClass"},
                                 {"metadata", {{"name", "hi"}}},
                                 {"value", 1000},
                                 {"globalDefault", true}});
  ASSERT_TRUE(pc.ok());
  EXPECT_EQ(pc->value, 1000);
  EXPECT_TRUE(pc->global_default);
  EXPECT_FALSE(pc->preempt_never);
}

// Pods that do not say take their class's preemptionPolicy (issue 12, 9).
TEST(DecodePriorityClassTest, PreemptionPolicy) {
  json obj = {{"kind", "PriorityClass"},
              {"metadata", {{"name", "polite"}}},
              {"value", 10},
              {"preemptionPolicy", "Never"}};
  auto pc = DecodePriorityClass(obj);
  ASSERT_TRUE(pc.ok()) << pc.status();
  EXPECT_TRUE(pc->preempt_never);
  obj["preemptionPolicy"] = "Sometimes";
  EXPECT_EQ(DecodePriorityClass(obj).status().message(),
            "priorityclass polite: preemptionPolicy: must be Never or "
            "PreemptLowerPriority, got "
            "\"Sometimes\"");
}

}  // namespace
}  // namespace shoal::kube

namespace shoal::kube {
namespace {

// Found by tools/fuzz (informer_fuzzer): a pod whose `status` was text
// decoded as a pod with no status, and the status writer then threw on
// it. A status that is not an object is refused by name, for every kind.
TEST(DecodeStatusTest, AStatusThatIsNotAnObjectIsRefused) {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p"}, {"namespace", "d"}}},
              {"spec", {{"containers", json::array({{{"name", "c"}}})}}},
              {"status", "default-pod"}};
  EXPECT_EQ(DecodePod(pod).status().message(),
            "pod d/p: status: must be an object, got \"default-pod\"");
  json node = {{"apiVersion", "v1"},
               {"kind", "Node"},
               {"metadata", {{"name", "n"}}},
               {"status", 7}};
  EXPECT_EQ(DecodeNode(node).status().message(),
            "node n: status: must be an object, got 7");
  json queue = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                {"kind", "Queue"},
                {"metadata", {{"name", "q"}}},
                {"status", json::array()}};
  EXPECT_EQ(DecodeQueue(queue).status().message(),
            "queue q: status: must be an object, got []");
  json group = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                {"kind", "PodGroup"},
                {"metadata", {{"name", "g"}, {"namespace", "d"}}},
                {"spec", {{"minMember", 1}}},
                {"status", true}};
  EXPECT_EQ(DecodePodGroup(group).status().message(),
            "podgroup d/g: status: must be an object, got true");
  // Absent or null is no status at all.
  pod["status"] = nullptr;
  EXPECT_TRUE(DecodePod(pod).ok());
}

// Volcano's job controller writes PodGroup minResources with
// ResourceQuota's names beside the real ones (e2e/fixtures/volcano-v1.7):
// they are left out, said once in one warning naming the object and the
// names, and the real resources are kept.
TEST(DecodePodGroupTest, QuotaNamesInMinResourcesAreLeftOutWithAWarning) {
  json pg = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
             {"kind", "PodGroup"},
             {"metadata", {{"name", "tf"}, {"namespace", "capture"}}},
             {"spec",
              {{"minMember", 4},
               {"minResources",
                {{"count/pods", "4"},
                 {"cpu", "4"},
                 {"limits.cpu", "4"},
                 {"limits.memory", "4Gi"},
                 {"memory", "4Gi"},
                 {"pods", "4"},
                 {"requests.cpu", "4"},
                 {"requests.memory", "4Gi"},
                 {"nvidia.com/gpu", "2"}}}}}};
  DecodeWarnings warnings;
  auto j = kube::DecodePodGroup(pg, &warnings);
  ASSERT_TRUE(j.ok()) << j.status();
  ASSERT_TRUE(j->min_resources.has_value());
  EXPECT_EQ(j->min_resources->Get(api::kCpu), 4000);
  EXPECT_EQ(j->min_resources->Get(api::kMemory), int64_t{4} << 30);
  EXPECT_EQ(j->min_resources->Get(api::kPods), 4);
  // A real resource the cluster may lack is kept: the gang waits for it.
  EXPECT_EQ(j->min_resources->Get(*api::InternResourceName("nvidia.com/gpu")),
            2);
  for (const char* quota :
       {"count/pods", "requests.cpu", "limits.cpu", "limits.memory"}) {
    EXPECT_EQ(j->min_resources->Get(*api::InternResourceName(quota)), 0)
        << quota;
  }
  EXPECT_EQ(Messages(warnings),
            std::vector<std::string>{
                "podgroup capture/tf: ignored spec.minResources count/pods, "
                "limits.cpu, limits.memory, requests.cpu, requests.memory: "
                "not resources a node has (ResourceQuota's names; Volcano's "
                "scheduler ignores them too)"});
  EXPECT_EQ(warnings[0].once_key, "podgroup capture/tf");
  // Nothing to say about a tidy one.
  warnings.clear();
  pg["spec"]["minResources"] = {{"cpu", "4"}, {"pods", "4"}};
  ASSERT_TRUE(kube::DecodePodGroup(pg, &warnings).ok());
  EXPECT_TRUE(warnings.empty()) << Messages(warnings)[0];
}

// The same rule wherever a ResourceList comes from outside.
TEST(DecodeQueueTest, QuotaNamesInLimitsAreLeftOutWithAWarning) {
  json q = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
            {"kind", "Queue"},
            {"metadata", {{"name", "research"}}},
            {"spec",
             {{"capability", {{"cpu", "8"}, {"limits.cpu", "8"}}},
              {"deserved", {{"requests.memory", "1Gi"}}},
              {"guarantee", {{"resource", {{"count/pods", "3"}}}}}}}};
  DecodeWarnings warnings;
  auto d = kube::DecodeQueue(q, &warnings);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->capability->Get(api::kCpu), 8000);
  // An ignored name bounds nothing: it is not a limit of zero.
  EXPECT_EQ(d->capability->Get(*api::InternResourceName("limits.cpu")),
            api::kUnlimited);
  EXPECT_EQ(d->deserved->Get(api::kMemory), api::kUnlimited);
  EXPECT_EQ(Messages(warnings),
            std::vector<std::string>{
                "queue research: ignored spec.capability limits.cpu; "
                "spec.deserved requests.memory; spec.guarantee.resource "
                "count/pods: not resources a node has (ResourceQuota's names; "
                "Volcano's scheduler ignores them too)"});
}

TEST(DecodePodTest, QuotaNamesInRequestsAndOverheadAreLeftOutWithAWarning) {
  json spec = {{"containers",
                {Container({{"cpu", "1"}, {"requests.cpu", "1"}},
                           {{"limits.memory", "1Gi"}})}},
               {"overhead", {{"count/pods", "1"}, {"memory", "64Mi"}}}};
  DecodeWarnings warnings;
  auto pod = kube::DecodePod(Pod(spec), &warnings);
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->pod->request.Get(api::kCpu), 1000);
  EXPECT_EQ(pod->pod->request.Get(api::kMemory), int64_t{64} << 20);
  EXPECT_EQ(Messages(warnings),
            std::vector<std::string>{
                "pod team-a/w-0: ignored spec.containers[0].resources.requests "
                "requests.cpu; spec.containers[0].resources.limits "
                "limits.memory; spec.overhead count/pods: not resources a node "
                "has (ResourceQuota's names; Volcano's scheduler ignores them "
                "too)"});
}

TEST(DecodePodGroupTest, ResizeCostAnnotation) {
  json pg = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
             {"kind", "PodGroup"},
             {"metadata",
              {{"name", "torch"},
               {"namespace", "ml"},
               {"annotations", {{"shoal.dev/resize-cost-seconds", "90"}}}}},
             {"spec", {{"minMember", 2}}}};
  auto j = DecodePodGroup(pg);
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ(j->resize_cost_seconds, 90);
  pg["metadata"].erase("annotations");
  EXPECT_EQ(DecodePodGroup(pg)->resize_cost_seconds, -1);  // policy default
  for (const char* bad : {"-1", "30s", "lots"}) {
    pg["metadata"]["annotations"] = {{"shoal.dev/resize-cost-seconds", bad}};
    auto refused = DecodePodGroup(pg);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.status().message(),
              absl::StrCat("podgroup ml/torch: "
                           "metadata.annotations[\"shoal.dev/"
                           "resize-cost-seconds\"]: must be a whole number of "
                           "seconds >= 0, got \"",
                           bad, "\""));
  }
}

TEST(DecodePodGroupTest, ThroughputAnnotation) {
  using Curve = std::vector<std::pair<int32_t, double>>;
  for (const char* api :
       {"scheduling.volcano.sh/v1beta1", "scheduling.x-k8s.io/v1alpha1"}) {
    json pg = {{"apiVersion", api},
               {"kind", "PodGroup"},
               {"metadata",
                {{"name", "torch"},
                 {"namespace", "ml"},
                 {"annotations",
                  {{"shoal.dev/throughput", "1=1,2=1.9,4=3.5,8=6.1"}}}}},
               {"spec", {{"minMember", 2}}}};
    auto j = DecodePodGroup(pg);
    ASSERT_TRUE(j.ok()) << j.status();
    EXPECT_EQ(j->throughput, (Curve{{1, 1}, {2, 1.9}, {4, 3.5}, {8, 6.1}}));
    // Relative to one pod: a curve in samples per second is divided by
    // the one-pod point; without one, the points are taken as they are.
    pg["metadata"]["annotations"]["shoal.dev/throughput"] = "1=200, 2=380";
    EXPECT_EQ(DecodePodGroup(pg)->throughput, (Curve{{1, 1}, {2, 1.9}}));
    pg["metadata"]["annotations"]["shoal.dev/throughput"] = "2=1.9,4=3.5";
    EXPECT_EQ(DecodePodGroup(pg)->throughput, (Curve{{2, 1.9}, {4, 3.5}}));
    pg["metadata"].erase("annotations");
    EXPECT_TRUE(DecodePodGroup(pg)->throughput.empty());  // linear
  }
  json pg = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
             {"kind", "PodGroup"},
             {"metadata", {{"name", "torch"}, {"namespace", "ml"}}},
             {"spec", {{"minMember", 2}}}};
  const std::string head =
      "podgroup ml/torch: metadata.annotations[\"shoal.dev/throughput\"]: "
      "must be pods=throughput points, comma-separated, by pod count "
      "ascending (\"1=1,2=1.9,4=3.5\"), got ";
  for (const auto& [bad, why] :
       std::vector<std::pair<std::string, std::string>>{
           {"2=x", "\"2=x\": throughput \"x\" is not a positive number"},
           {"1=1,2=0",
            "\"1=1,2=0\": throughput \"0\" is not a positive number"},
           {"1=1,2=-3",
            "\"1=1,2=-3\": throughput \"-3\" is not a positive number"},
           {"1=inf", "\"1=inf\": throughput \"inf\" is not a positive number"},
           {"0=1", "\"0=1\": pod count \"0\" is not a whole number >= 1"},
           {"1.5=2", "\"1.5=2\": pod count \"1.5\" is not a whole number >= 1"},
           {"4=3.5,2=1.9", "\"4=3.5,2=1.9\": pod count 2 comes after 4"},
           {"1=1,1=1", "\"1=1,1=1\": pod count 1 comes after 1"},
           {"1=1;2=2", "\"1=1;2=2\": \"1=1;2=2\" is not one pods=throughput"},
           {"1=1,", "\"1=1,\": \"\" is not one pods=throughput"},
           {"", "\"\": no points"}}) {
    pg["metadata"]["annotations"] = {{"shoal.dev/throughput", bad}};
    auto refused = DecodePodGroup(pg);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.status().message(), head + why);
  }
}

TEST(DecodePodGroupTest, ProgressAnnotation) {
  json pg = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
             {"kind", "PodGroup"},
             {"metadata",
              {{"name", "torch"},
               {"namespace", "ml"},
               {"annotations", {{"shoal.dev/progress", "1250.5"}}}}},
             {"spec", {{"minMember", 2}}}};
  auto j = DecodePodGroup(pg);
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ(j->progress, 1250.5);
  pg["metadata"].erase("annotations");
  EXPECT_EQ(DecodePodGroup(pg)->progress, -1);  // does not say
  for (const std::string bad : {"-3", "x", "inf", ""}) {
    pg["metadata"]["annotations"] = {{"shoal.dev/progress", bad}};
    auto refused = DecodePodGroup(pg);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.status().message(),
              "podgroup ml/torch: metadata.annotations[\"shoal.dev/"
              "progress\"]: must be a number >= 0 (the work the job has done "
              "so far, in any unit, raised as it trains), got \"" +
                  bad + "\"");
  }
  // A Workload says it for its gangs, a PodGroup of scheduling.k8s.io
  // for itself.
  auto workload = json::parse(R"({
    "apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
    "metadata": {"name": "train", "namespace": "ml",
                 "annotations": {"shoal.dev/progress": "7"}},
    "spec": {"podGroups": [{"name": "workers",
                            "policy": {"gang": {"minCount": 2}}}]}})");
  auto w = DecodeWorkload(workload, nullptr);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->progress, 7);
  auto kube = json::parse(R"({
    "apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup",
    "metadata": {"name": "train-workers", "namespace": "ml",
                 "annotations": {"shoal.dev/progress": "42"}},
    "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}})");
  auto k = DecodeKubePodGroup(kube, nullptr);
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->progress, 42);
}

TEST(DecodePodGroupTest, NetworkTopology) {
  json pg = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
             {"kind", "PodGroup"},
             {"metadata", {{"name", "llm"}, {"namespace", "team-a"}}},
             {"spec", {{"minMember", 4}}}};
  auto decode = [&](json nt, DecodeWarnings* warnings = nullptr) {
    json o = pg;
    o["spec"]["networkTopology"] = std::move(nt);
    return kube::DecodePodGroup(o, warnings);
  };
  auto hard = decode({{"mode", "hard"}, {"highestTierAllowed", 2}});
  ASSERT_TRUE(hard.ok()) << hard.status();
  EXPECT_EQ(hard->network.mode, api::NetworkConstraint::Mode::kHard);
  EXPECT_EQ(hard->network.highest_tier, 2);
  auto named = decode({{"highestTierName", "rack"}});  // mode defaults hard
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->network.mode, api::NetworkConstraint::Mode::kHard);
  EXPECT_EQ(named->network.highest_tier_name, "rack");
  auto soft = decode({{"mode", "soft"}});
  ASSERT_TRUE(soft.ok());
  EXPECT_EQ(soft->network.mode, api::NetworkConstraint::Mode::kSoft);
  // Bad values are refused by name; a hard mode without a tier is read as
  // Volcano reads it (no limit), and said.
  EXPECT_EQ(decode({{"mode", "strict"}}).status().message(),
            "podgroup team-a/llm: spec.networkTopology.mode: must be hard or "
            "soft, got \"strict\"");
  EXPECT_EQ(decode({{"highestTierAllowed", 1}, {"highestTierName", "rack"}})
                .status()
                .message(),
            "podgroup team-a/llm: spec.networkTopology: highestTierAllowed and "
            "highestTierName cannot both be set");
  EXPECT_EQ(decode({{"highestTierAllowed", -1}}).status().message(),
            "podgroup team-a/llm: spec.networkTopology.highestTierAllowed: "
            "must be >= 0, got -1");
  DecodeWarnings warnings;
  auto bare = decode({{"mode", "hard"}}, &warnings);
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->network.mode, api::NetworkConstraint::Mode::kSoft);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0].message,
              ::testing::HasSubstr("spec.networkTopology: mode hard names "
                                   "neither highestTierAllowed nor "
                                   "highestTierName, so it limits nothing"));
}

TEST(DecodePodGroupTest, SubGroupPolicy) {
  json pg = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
             {"kind", "PodGroup"},
             {"metadata", {{"name", "llm"}, {"namespace", "team-a"}}},
             {"spec", {{"minMember", 4}}}};
  auto decode = [&](json list, DecodeWarnings* warnings = nullptr) {
    json o = pg;
    o["spec"]["subGroupPolicy"] = std::move(list);
    return kube::DecodePodGroup(o, warnings);
  };
  DecodeWarnings warnings;
  auto job = decode(json::parse(R"([
      {"name": "worker", "subGroupSize": 2, "minSubGroups": 1,
       "labelSelector": {"matchLabels": {"role": "worker"}},
       "matchLabelKeys": ["replica"],
       "networkTopology": {"mode": "hard", "highestTierAllowed": 1},
       "subGroupWeight": 3},
      {"name": "ps"}])"),
                    &warnings);
  ASSERT_TRUE(job.ok()) << job.status();
  ASSERT_EQ(job->sub_group_policies.size(), 2u);
  const api::SubGroupPolicy& w = job->sub_group_policies[0];
  EXPECT_EQ(w.name, "worker");
  EXPECT_EQ(w.size, 2);
  EXPECT_EQ(w.min_groups, 1);
  ASSERT_TRUE(w.selector.has_value());
  EXPECT_TRUE(w.selector->Matches(api::Labels(
      {std::make_pair(std::string("role"), std::string("worker"))})));
  EXPECT_FALSE(w.selector->Matches(
      api::Labels({std::make_pair(std::string("role"), std::string("ps"))})));
  EXPECT_EQ(w.match_label_keys, std::vector<std::string>{"replica"});
  EXPECT_EQ(w.network.mode, api::NetworkConstraint::Mode::kHard);
  EXPECT_EQ(w.network.highest_tier, 1);
  // Defaults as Volcano's CRD states them.
  const api::SubGroupPolicy& ps = job->sub_group_policies[1];
  EXPECT_EQ(ps.size, 1);
  EXPECT_EQ(ps.min_groups, 0);
  EXPECT_FALSE(ps.selector.has_value());
  EXPECT_EQ(ps.network.mode, api::NetworkConstraint::Mode::kNone);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].message,
            "podgroup team-a/llm: spec.subGroupPolicy[0].subGroupWeight: not "
            "a field Shoal knows; ignored (said once for every podgroup)");
  // Bad values are refused by name, with the entry's index.
  auto error = [&](const char* list) {
    return std::string(decode(json::parse(list)).status().message());
  };
  EXPECT_EQ(error(R"([{"name": "w", "subGroupSize": 0}])"),
            "podgroup team-a/llm: spec.subGroupPolicy[0].subGroupSize: must be "
            ">= 1, got 0");
  EXPECT_EQ(error(R"([{"name": "w"}, {"name": "x", "minSubGroups": -1}])"),
            "podgroup team-a/llm: spec.subGroupPolicy[1].minSubGroups: must be "
            ">= 0, got -1");
  EXPECT_EQ(error(R"([{"name": "w"}, {"name": "w"}])"),
            "podgroup team-a/llm: spec.subGroupPolicy[1].name: \"w\" is used "
            "twice");
  EXPECT_EQ(error(R"([{"name": "w", "matchLabelKeys": "replica"}])"),
            "podgroup team-a/llm: spec.subGroupPolicy[0].matchLabelKeys: must "
            "be a list of label keys");
  EXPECT_EQ(
      error(R"([{"name": "w", "networkTopology": {"mode": "strict"}}])"),
      "podgroup team-a/llm: spec.subGroupPolicy[0].networkTopology.mode: must "
      "be hard or soft, got \"strict\"");
  EXPECT_EQ(error(R"({"name": "w"})"),
            "podgroup team-a/llm: spec.subGroupPolicy: must be a list");
}

// Kubernetes' own gang API: Workload in both shapes it was served in,
// its v1alpha2 PodGroup, and the pod fields that join them.
TEST(DecodeWorkloadTest, BothShapesAndRefusals) {
  auto v1 = json::parse(R"({
    "apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
    "metadata": {"name": "train", "namespace": "ml", "uid": "u1",
                 "annotations": {"scheduling.volcano.sh/queue-name": "gpu"}},
    "spec": {"controllerRef": {"apiGroup": "batch", "kind": "Job",
                               "name": "train"},
             "podGroups": [{"name": "workers",
                            "policy": {"gang": {"minCount": 4}}},
                           {"name": "driver", "policy": {"basic": {}}}]}})");
  auto w = DecodeWorkload(v1, nullptr);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->queue, "gpu");
  ASSERT_EQ(w->pod_groups.size(), 2u);
  EXPECT_TRUE(w->pod_groups[0].gang);
  EXPECT_EQ(w->pod_groups[0].min_count, 4);
  EXPECT_FALSE(w->pod_groups[1].gang);
  auto v2 = json::parse(R"({
    "apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "Workload",
    "metadata": {"name": "train", "namespace": "ml"},
    "spec": {"podGroupTemplates": [{"name": "workers",
              "schedulingPolicy": {"gang": {"minCount": 3}}}]}})");
  w = DecodeWorkload(v2, nullptr);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->pod_groups[0].min_count, 3);
  EXPECT_EQ(w->queue, "default");
  auto error = [&](const char* groups) {
    json o = v1;
    o["spec"]["podGroups"] = json::parse(groups);
    return std::string(DecodeWorkload(o, nullptr).status().message());
  };
  EXPECT_EQ(error(R"([{"name": "w", "policy": {"gang": {"minCount": 0}}}])"),
            "workload ml/train: spec.podGroups[0].policy.gang.minCount: must "
            "be >= 1, got 0");
  EXPECT_EQ(error(R"([{"name": "w", "policy": {"gang": {"minCount": 2},
                                               "basic": {}}}])"),
            "workload ml/train: spec.podGroups[0].policy: must set exactly "
            "one of gang and basic");
  EXPECT_EQ(error(R"([{"name": "w", "policy": {"basic": {}}},
                      {"name": "w", "policy": {"basic": {}}}])"),
            "workload ml/train: spec.podGroups[1].name: \"w\" is used twice");
  DecodeWarnings said;
  json timed = v1;
  timed["spec"]["podGroups"][0]["policy"]["gang"]["timeoutSeconds"] = 30;
  ASSERT_TRUE(DecodeWorkload(timed, &said).ok());
  ASSERT_EQ(said.size(), 1u);
  EXPECT_EQ(said[0].message,
            "workload ml/train: spec.podGroups[0].policy.gang.timeoutSeconds: "
            "not a field Shoal knows; ignored");
  EXPECT_EQ(error("[]"),
            "workload ml/train: spec.podGroups: must be a list of at least one "
            "group");

  auto pg = json::parse(R"({
    "apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup",
    "metadata": {"name": "train-workers", "namespace": "ml"},
    "spec": {"podGroupTemplateRef": {"workload": {"workloadName": "train",
                                     "podGroupTemplateName": "workers"}},
             "priorityClassName": "high", "disruptionMode": "PodGroup",
             "schedulingPolicy": {"gang": {"minCount": 3}}}})");
  ASSERT_TRUE(IsKubePodGroup(pg));
  auto job = DecodeKubePodGroup(pg, nullptr);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->min_member, 3);
  EXPECT_EQ(job->priority_class, "high");
  EXPECT_EQ(job->source, api::GroupSource::kKubePodGroup);
  EXPECT_EQ(job->unsupported_field, "");
  EXPECT_TRUE(job->disrupted_whole);  // disruptionMode: PodGroup
}

TEST(DecodeWorkloadTest, ResizeCostAnnotationOnWorkloadsAndTheirPodGroups) {
  auto w = DecodeWorkload(json::parse(R"({
    "apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
    "metadata": {"name": "train", "namespace": "ml",
                 "annotations": {"shoal.dev/resize-cost-seconds": "120"}},
    "spec": {"podGroups": [{"name": "workers",
                            "policy": {"gang": {"minCount": 2}}}]}})"),
                          nullptr);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->resize_cost_seconds, 120);
  auto pg = json::parse(R"({
    "apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup",
    "metadata": {"name": "train-workers", "namespace": "ml",
                 "annotations": {"shoal.dev/resize-cost-seconds": "soon"}},
    "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}})");
  auto refused = DecodeKubePodGroup(pg, nullptr);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.status().message()),
              ::testing::HasSubstr(
                  "metadata.annotations[\"shoal.dev/resize-cost-seconds\"]: "
                  "must be a whole number of seconds >= 0, got \"soon\""));
  pg["metadata"]["annotations"]["shoal.dev/resize-cost-seconds"] = "45";
  auto ok = DecodeKubePodGroup(pg, nullptr);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->resize_cost_seconds, 45);
}

TEST(DecodeWorkloadTest, ThroughputAnnotationOnWorkloadsAndTheirPodGroups) {
  using Curve = std::vector<std::pair<int32_t, double>>;
  auto workload = json::parse(R"({
    "apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
    "metadata": {"name": "train", "namespace": "ml",
                 "annotations": {"shoal.dev/throughput": "1=1,2=1.9,4=3.6"}},
    "spec": {"podGroups": [{"name": "workers",
                            "policy": {"gang": {"minCount": 2}}}]}})");
  auto w = DecodeWorkload(workload, nullptr);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->throughput, (Curve{{1, 1}, {2, 1.9}, {4, 3.6}}));
  workload["metadata"]["annotations"]["shoal.dev/throughput"] = "2=x";
  auto refused = DecodeWorkload(workload, nullptr);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "workload ml/train: metadata.annotations[\"shoal.dev/"
            "throughput\"]: must be pods=throughput points, comma-separated, "
            "by pod count ascending (\"1=1,2=1.9,4=3.5\"), got \"2=x\": "
            "throughput \"x\" is not a positive number");
  auto pg = json::parse(R"({
    "apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup",
    "metadata": {"name": "train-workers", "namespace": "ml",
                 "annotations": {"shoal.dev/throughput": "1=1,2=1.05"}},
    "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}})");
  auto ok = DecodeKubePodGroup(pg, nullptr);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->throughput, (Curve{{1, 1}, {2, 1.05}}));
  pg["metadata"]["annotations"]["shoal.dev/throughput"] = "4=2,2=1";
  auto bad = DecodeKubePodGroup(pg, nullptr);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "podgroup ml/train-workers: metadata.annotations[\"shoal.dev/"
            "throughput\"]: must be pods=throughput points, comma-separated, "
            "by pod count ascending (\"1=1,2=1.9,4=3.5\"), got \"4=2,2=1\": "
            "pod count 2 comes after 4");
}

TEST(DecodePodTest, WorkloadRefAndSchedulingGroupJoinOneGangOnly) {
  auto decode = [](json spec, json annotations = json::object()) {
    spec["containers"] = {Container({{"cpu", "1"}})};
    json meta = json::object();
    if (!annotations.empty()) meta["annotations"] = annotations;
    return DecodePod(Pod(spec, meta));
  };
  auto pod = decode({{"workloadRef",
                      {{"name", "train"},
                       {"podGroup", "workers"},
                       {"podGroupReplicaKey", "1"}}}});
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->pod->group, "train/workers/1");
  EXPECT_EQ(pod->pod->workload_ref.replica_key, "1");
  pod = decode({{"schedulingGroup", {{"podGroupName", "train-workers"}}}});
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->pod->group, "train-workers");
  EXPECT_TRUE(pod->pod->in_scheduling_group);
  // Named in two gangs: refused by name, counted in its PodGroup only.
  pod = decode({{"workloadRef", {{"name", "train"}, {"podGroup", "workers"}}}},
               {{"scheduling.k8s.io/group-name", "pg"}});
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->pod->group, "pg");
  EXPECT_THAT(
      pod->pod->group_conflict,
      ::testing::HasSubstr("names two gangs: podgroup pg and workload "
                           "train podGroup workers (spec.workloadRef)"));
  DecodeWarnings said;
  json spec = {
      {"workloadRef",
       {{"name", "train"}, {"podGroup", "workers"}, {"podGroupIndex", 2}}},
      {"containers", {Container({{"cpu", "1"}})}}};
  ASSERT_TRUE(DecodePod(Pod(spec), &said).ok());
  ASSERT_EQ(said.size(), 1u);
  EXPECT_EQ(said[0].message,
            "pod team-a/w-0: spec.workloadRef.podGroupIndex: not a field Shoal "
            "knows; ignored");
  EXPECT_EQ(decode({{"workloadRef", {{"name", "train"}}}}).status().message(),
            "pod team-a/w-0: spec.workloadRef.podGroup: must be set");
}

TEST(DecodeHyperNodeTest, MembersAndRefusals) {
  json h = json::parse(R"({
    "apiVersion": "topology.volcano.sh/v1alpha1", "kind": "HyperNode",
    "metadata": {"name": "rack0"},
    "spec": {"tier": 1, "tierName": "rack", "members": [
      {"type": "Node", "selector": {"exactMatch": {"name": "n0"}}},
      {"type": "Node", "selector": {"regexMatch": {"pattern": "^gpu-"}}},
      {"type": "Node", "selector": {"labelMatch": {"matchLabels": {"rack": "0"}}}},
      {"type": "HyperNode", "selector": {"exactMatch": {"name": "nvl0"}}}]}})");
  ASSERT_TRUE(IsHyperNode(h));
  auto d = DecodeHyperNode(h, nullptr);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->tier, 1);
  EXPECT_EQ(d->tier_name, "rack");
  ASSERT_EQ(d->members.size(), 4u);
  EXPECT_EQ(d->members[1].match, api::HyperNodeMember::Match::kRegex);
  EXPECT_EQ(d->members[1].value, "^gpu-");
  EXPECT_EQ(d->members[2].match, api::HyperNodeMember::Match::kLabels);
  EXPECT_EQ(d->members[3].type, api::HyperNodeMember::Type::kHyperNode);
  json bad = h;
  bad["spec"]["tier"] = 0;
  EXPECT_EQ(DecodeHyperNode(bad, nullptr).status().message(),
            "hypernode rack0: spec.tier: must be a whole number >= 1 (tier 1 "
            "is the closest network), got 0");
  bad = h;
  bad["spec"]["members"][0]["selector"]["regexMatch"] = {{"pattern", "n"}};
  EXPECT_EQ(DecodeHyperNode(bad, nullptr).status().message(),
            "hypernode rack0: spec.members[0].selector: must have exactly one "
            "of exactMatch, regexMatch or labelMatch");
  json newer = h;
  newer["spec"]["gateway"] = "gw0";  // not a field Shoal knows
  DecodeWarnings warnings;
  ASSERT_TRUE(DecodeHyperNode(newer, &warnings).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].message,
            "hypernode rack0: spec.gateway: not a field Shoal knows; ignored "
            "(said once for every hypernode)");
  bad = h;
  bad["spec"]["members"][0]["type"] = "Rack";
  EXPECT_EQ(DecodeHyperNode(bad, nullptr).status().message(),
            "hypernode rack0: spec.members[0].type: must be Node or "
            "HyperNode, got \"Rack\"");
}

// Every listed PodGroup field Shoal does not implement makes the gang
// wait (session_test checks the message); known fields with no bearing on
// placement pass; a field no list names is a warning said once per kind.
TEST(DecodePodGroupTest, SchedulingFieldsShoalDoesNotImplementAreNamed) {
  json vc = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
             {"kind", "PodGroup"},
             {"metadata", {{"name", "llm"}, {"namespace", "team-a"}}},
             {"spec", {{"minMember", 4}}}};
  auto field = [&](const char* name, json value) {
    json o = vc;
    o["spec"][name] = value;
    auto j = DecodePodGroup(o);
    EXPECT_TRUE(j.ok()) << j.status();
    return j.ok() ? std::make_pair(j->unsupported_field, j->unsupported_value)
                  : std::make_pair(std::string("?"), std::string());
  };
  EXPECT_EQ(field("subGroupPolicy",
                  json::array({{{"name", "w"}, {"subGroupSize", 2}}}))
                .first,
            "");
  EXPECT_EQ(
      field("networkTopology", {{"mode", "hard"}, {"highestTierAllowed", 1}})
          .first,
      "");
  EXPECT_EQ(field("queue", "gpu").first, "");
  EXPECT_EQ(field("networkTopology", nullptr).first, "");
  json sp = {{"apiVersion", "scheduling.x-k8s.io/v1alpha1"},
             {"kind", "PodGroup"},
             {"metadata", {{"name", "sp"}, {"namespace", "team-b"}}},
             {"spec", {{"minMember", 3}, {"scheduleTimeoutSeconds", 10}}}};
  DecodeWarnings warnings;
  auto s = kube::DecodePodGroup(sp, &warnings);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->unsupported_field, "");
  EXPECT_TRUE(warnings.empty());
  sp["spec"]["minMembers"] = 3;  // a typo
  s = kube::DecodePodGroup(sp, &warnings);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->unsupported_field, "");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].message,
            "podgroup team-b/sp: spec.minMembers: not a field Shoal knows; "
            "ignored (said once for every podgroup)");
  EXPECT_EQ(warnings[0].once_key, "podgroup spec.minMembers");
  EXPECT_FALSE(warnings[0].per_object);
}

// A Queue has no pods to hold back: a field Shoal does not implement is a
// warning naming the queue, the field and its value.
TEST(DecodeQueueTest, SchedulingFieldsShoalDoesNotImplementAreWarnedAbout) {
  json q = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
            {"kind", "Queue"},
            {"metadata", {{"name", "team-a-dev"}}},
            {"spec", {{"weight", 1}}}};
  struct Case {
    const char* name;
    const char* value;  // as JSON, and as the warning shows it
  };
  for (
      const Case& c : std::vector<Case>{
          {"affinity",
           R"({"nodeGroupAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":["gpu"]}})"},
          {"dequeueStrategy", R"("fifo")"}}) {
    json o = q;
    o["spec"][c.name] = json::parse(c.value);
    DecodeWarnings warnings;
    ASSERT_TRUE(kube::DecodeQueue(o, &warnings).ok());
    EXPECT_EQ(Messages(warnings),
              std::vector<std::string>{absl::StrCat(
                  "queue team-a-dev: spec.", c.name, ": ", c.value,
                  ": Shoal does not implement it yet; the queue is scheduled "
                  "as if it were absent")});
  }
  DecodeWarnings none;
  q["spec"]["extendClusters"] = json::array({{{"name", "c1"}}});
  ASSERT_TRUE(kube::DecodeQueue(q, &none).ok());
  EXPECT_TRUE(none.empty());
}

// spec.parent places the queue in the tree (scheduler/api/queue_tree.h).
TEST(DecodeQueueTest, ParentIsRead) {
  json q = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
            {"kind", "Queue"},
            {"metadata", {{"name", "team-a-dev"}}},
            {"spec", {{"parent", "team-a"}}}};
  DecodeWarnings warnings;
  auto decoded = kube::DecodeQueue(q, &warnings);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->parent, "team-a");
  EXPECT_TRUE(warnings.empty());
  q["spec"]["parent"] = 7;
  EXPECT_EQ(kube::DecodeQueue(q, &warnings).status().message(),
            "queue team-a-dev: spec.parent: must be a string, got 7");
}

// DeviceTaintRule (resource.k8s.io/v1beta2, as Kubernetes 1.36 serves it).
TEST(DecodeDeviceTaintRuleTest, ReadsTheSelectorAndTaintAndNamesWhatItCannot) {
  json rule = json::parse(R"({
    "apiVersion": "resource.k8s.io/v1beta2", "kind": "DeviceTaintRule",
    "metadata": {"name": "drain"},
    "spec": {"deviceSelector": {"driver": "gpu.example.com", "pool": "n1",
                                "device": "gpu-1"},
             "taint": {"key": "example.com/maintenance", "value": "planned",
                       "effect": "NoExecute"}}})");
  DecodeWarnings warnings;
  auto r = DecodeDeviceTaintRule(rule, &warnings);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->Picks("gpu.example.com", "n1", "gpu-1"));
  EXPECT_FALSE(r->Picks("gpu.example.com", "n1", "gpu-0"));
  EXPECT_EQ(r->taint.effect, "NoExecute");
  EXPECT_FALSE(r->broadened);

  rule["spec"]["deviceSelector"]["deviceClassName"] = "gpu";
  r = DecodeDeviceTaintRule(rule, &warnings);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->broadened);

  rule["spec"]["taint"]["effect"] = "PreferNoSchedule";
  EXPECT_EQ(DecodeDeviceTaintRule(rule, nullptr).status().message(),
            "devicetaintrule drain: spec.taint.effect: must be NoSchedule, "
            "NoExecute or None, got \"PreferNoSchedule\"");
  rule["spec"].erase("taint");
  EXPECT_EQ(DecodeDeviceTaintRule(rule, nullptr).status().message(),
            "devicetaintrule drain: spec.taint: is required");
}

}  // namespace
}  // namespace shoal::kube
