#include "scheduler/kube/snapshot/snapshot_writer.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "plugins/builtin.h"
#include "policies/default_policy.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/framework/config.h"
#include "scheduler/framework/cycle.h"
#include "scheduler/framework/policy.h"
#include "scheduler/kube/decode/objects.h"
#include "scheduler/kube/snapshot/snapshot_file.h"
#include "scheduler/kube/stream/yaml_json.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

// One cluster from the repository's test data: a snapshot file, or one
// case of the conformance suite (its objects, policy and scheduler name).
struct Dump {
  std::string where;
  std::string text;  // YAML or JSON of the objects
  std::string policy;
  std::string scheduler_name;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<std::string> FilesUnder(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".yaml") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Dump> TestData() {
  std::vector<Dump> out;
  for (const std::string& path : FilesUnder("e2e/snapshots")) {
    out.push_back({path, ReadFile(path), policies::kDefaultPolicy, "shoal"});
  }
  for (const char* dir : {"e2e/conformance/volcano", "e2e/conformance/kai",
                          "e2e/conformance/kube-scheduler"}) {
    for (const std::string& path : FilesUnder(dir)) {
      auto docs = ParseYamlDocuments(ReadFile(path), path);
      EXPECT_TRUE(docs.ok()) << docs.status();
      if (!docs.ok()) continue;
      for (const auto& doc : *docs) {
        if (!doc.value.is_array()) continue;
        for (const json& c : doc.value) {
          if (!c.is_object() || !c.contains("objects")) continue;
          json list = {
              {"apiVersion", "v1"}, {"kind", "List"}, {"items", c["objects"]}};
          out.push_back(
              {absl::StrCat(path, ": ", StringMember(c, "name")), list.dump(),
               c.contains("policy") ? StringMember(c, "policy")
                                    : std::string(policies::kDefaultPolicy),
               c.contains("schedulerName") ? StringMember(c, "schedulerName")
                                           : std::string("volcano")});
        }
      }
    }
  }
  return out;
}

absl::StatusOr<framework::Policy> MakePolicy(const std::string& yaml) {
  auto config = framework::ParseSchedulerConfig(yaml, "policy.yaml");
  if (!config.ok()) return config.status();
  return framework::BuildPolicy(*config, plugins::BuiltinPlugins(),
                                actions::BuiltinActions());
}

// What one cycle decided, by name: binds, evictions, and each job's
// phase, message and fit error.
struct Decisions {
  std::vector<std::string> binds;
  std::vector<std::string> evictions;
  std::vector<std::string> jobs;
  bool operator==(const Decisions& o) const {
    return binds == o.binds && evictions == o.evictions && jobs == o.jobs;
  }
};

std::ostream& operator<<(std::ostream& os, const Decisions& d) {
  for (const auto& b : d.binds) os << "\n  bind " << b;
  for (const auto& e : d.evictions) os << "\n  evict " << e;
  for (const auto& j : d.jobs) os << "\n  job " << j;
  return os;
}

Decisions Decide(const framework::CycleOutcome& outcome) {
  Decisions d;
  const api::ClusterInfo& c = outcome.cluster;
  for (const auto& b : outcome.binds) {
    d.binds.push_back(absl::StrCat(c.tasks[b.task].pod->Key(), " -> ",
                                   c.nodes[b.node].name()));
  }
  for (const auto& e : outcome.evictions) {
    d.evictions.push_back(absl::StrCat(c.tasks[e.task].pod->Key(), " (",
                                       e.reason, " for ", e.preemptor, ")"));
  }
  for (const auto& j : c.jobs) {
    d.jobs.push_back(absl::StrCat(j.Key(), " ", api::PodGroupPhaseName(j.phase),
                                  " elastic ", j.elastic_target, ": ",
                                  j.message, " | ", j.fit_error));
  }
  return d;
}

// Every input of a cycle the two snapshots must agree on; the first
// difference, or "".
std::string Diff(const api::ClusterInfo& a, const api::ClusterInfo& b) {
  if (a.nodes.size() != b.nodes.size()) return "node count";
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const api::NodeInfo& x = a.nodes[i];
    const api::NodeInfo& y = b.nodes[i];
    const std::string at = "node " + x.name();
    if (x.name() != y.name() || !(x.spec().labels == y.spec().labels) ||
        x.spec().taints != y.spec().taints ||
        x.spec().unschedulable != y.spec().unschedulable ||
        x.spec().ready != y.spec().ready || x.allocatable() != y.allocatable())
      return at + " spec";
    if (x.used() != y.used() || x.idle() != y.idle() ||
        x.releasing() != y.releasing() || x.pipelined() != y.pipelined())
      return at + " accounting";
    if (x.tasks() != y.tasks()) return at + " tasks";
    if (x.AttachedVolumeCount() != y.AttachedVolumeCount())
      return at + " attached volumes";
    bool xl = x.volume_limits() != nullptr, yl = y.volume_limits() != nullptr;
    if (xl != yl || (xl && *x.volume_limits() != *y.volume_limits()))
      return at + " volume limits";
  }
  if (a.foreign_pods.size() != b.foreign_pods.size()) return "foreign pods";
  for (size_t i = 0; i < a.foreign_pods.size(); ++i) {
    if (a.foreign_pods[i].pod->Key() != b.foreign_pods[i].pod->Key() ||
        a.foreign_pods[i].node != b.foreign_pods[i].node)
      return "foreign pod " + a.foreign_pods[i].pod->Key();
  }
  if (a.namespace_labels != b.namespace_labels) return "namespaces";
  if (a.queues.size() != b.queues.size()) return "queue count";
  for (size_t i = 0; i < a.queues.size(); ++i) {
    const api::QueueInfo& x = a.queues[i];
    const api::QueueInfo& y = b.queues[i];
    if (x.name != y.name || x.weight != y.weight || x.priority != y.priority ||
        x.capability != y.capability || x.guarantee != y.guarantee ||
        x.deserved != y.deserved || x.reclaimable != y.reclaimable ||
        x.open != y.open || x.implicit != y.implicit || x.parent != y.parent ||
        x.children != y.children)
      return "queue " + x.name;
  }
  if (a.now != b.now || a.total_allocatable != b.total_allocatable)
    return "cluster";
  if (a.jobs.size() != b.jobs.size()) return "job count";
  for (size_t i = 0; i < a.jobs.size(); ++i) {
    const api::JobInfo& x = a.jobs[i];
    api::JobInfo y = b.jobs[i];
    // Kubernetes' own PodGroup, Workload and CompositePodGroup tree carry
    // no phase: what the scheduler kept of theirs lives in its cache
    // alone, and a snapshot (like a restart) starts them from Pending
    // again.
    if (x.source == api::GroupSource::kKubePodGroup ||
        x.source == api::GroupSource::kWorkload ||
        x.source == api::GroupSource::kCompositeTree) {
      y.phase = x.phase;
    }
    if (std::tie(x.ns, x.name, x.uid, x.source, x.queue, x.queue_index,
                 x.min_member, x.min_task_member, x.min_resources,
                 x.priority_class, x.priority, x.phase, x.group_missing,
                 x.unsupported_field, x.unsupported_value, x.renewing_admission,
                 x.created, x.tasks, x.resize_cost_seconds, x.throughput,
                 x.progress) !=
        std::tie(y.ns, y.name, y.uid, y.source, y.queue, y.queue_index,
                 y.min_member, y.min_task_member, y.min_resources,
                 y.priority_class, y.priority, y.phase, y.group_missing,
                 y.unsupported_field, y.unsupported_value, y.renewing_admission,
                 y.created, y.tasks, y.resize_cost_seconds, y.throughput,
                 y.progress)) {
      return "job " + x.Key() +
             (x.phase != y.phase
                  ? std::string(" phase ") + api::PodGroupPhaseName(x.phase) +
                        " != " + api::PodGroupPhaseName(y.phase)
                  : std::string());
    }
  }
  if (a.tasks.size() != b.tasks.size()) return "task count";
  for (size_t i = 0; i < a.tasks.size(); ++i) {
    const api::TaskInfo& s = a.tasks[i];
    const api::TaskInfo& t = b.tasks[i];
    const api::PodInfo& x = *s.pod;
    const api::PodInfo& y = *t.pod;
    const std::string at = "task " + x.Key();
    if (s.status != t.status || s.node != t.node || s.job != t.job)
      return at + " status";
    if (std::tie(x.ns, x.name, x.uid, x.scheduler_name, x.node_name, x.group,
                 x.role, x.priority_class, x.priority, x.preempt_never,
                 x.preemption_policy_set, x.preemptable, x.critical, x.status,
                 x.created, x.host_ports, x.scheduling_gates,
                 x.unsupported_field, x.unsupported_value, x.volume_claims,
                 x.volume_refusal, x.volume_reason, x.csi_volumes, x.request) !=
        std::tie(y.ns, y.name, y.uid, y.scheduler_name, y.node_name, y.group,
                 y.role, y.priority_class, y.priority, y.preempt_never,
                 y.preemption_policy_set, y.preemptable, y.critical, y.status,
                 y.created, y.host_ports, y.scheduling_gates,
                 y.unsupported_field, y.unsupported_value, y.volume_claims,
                 y.volume_refusal, y.volume_reason, y.csi_volumes, y.request))
      return at + " pod";
    if (!(x.labels == y.labels)) return at + " labels";
    if (!(*x.placement == *y.placement) ||
        x.placement->fingerprint != y.placement->fingerprint)
      return at + " placement";
    bool xi = x.inter_pod != nullptr, yi = y.inter_pod != nullptr;
    if (xi != yi || (xi && !(*x.inter_pod == *y.inter_pod)))
      return at + " inter-pod rules";
  }
  return "";
}

// An assumed bind shows as Binding live and as Bound once written out;
// otherwise the same.
api::ClusterInfo BindingAsBound(api::ClusterInfo c) {
  for (api::TaskInfo& t : c.tasks) {
    if (t.status != api::TaskStatus::kBinding) continue;
    t.status = api::TaskStatus::kBound;
    auto pod = std::make_shared<api::PodInfo>(*t.pod);
    pod->status = api::TaskStatus::kBound;
    t.pod = std::move(pod);
    api::JobInfo& j = c.jobs[t.job];
    j.Recount(api::TaskStatus::kBinding, api::TaskStatus::kBound);
  }
  return c;
}

struct Counts {
  int dumps = 0;
  int refused = 0;  // data the decoders refuse (a case about a refusal)
  int cycles = 0;
  int binds = 0;
  int evictions = 0;
  int assumed = 0;
  int kept = 0;
};

// Load `dump`, write it out, read that back, and check that both caches
// hold the same cluster and decide the same in a cycle. With `advance`,
// first run one cycle on the original and keep what it decided (assumed
// binds, kept phases), as the live scheduler does.
void RoundTrip(const Dump& dump, bool advance, Counts& counts) {
  SCOPED_TRACE(dump.where + (advance ? " (after a cycle)" : ""));
  cache::Cache probe(dump.scheduler_name);
  std::vector<std::string> warnings;
  if (!LoadSnapshot(dump.text, dump.where, probe, &warnings).ok()) {
    if (!advance) ++counts.refused;
    return;
  }
  const absl::Time now = probe.LatestCreation() + absl::Minutes(1);
  auto clock = [now] { return now; };
  cache::Cache original(dump.scheduler_name, clock);
  ASSERT_TRUE(LoadSnapshot(dump.text, dump.where, original, &warnings).ok());
  auto policy = MakePolicy(dump.policy);
  if (!policy.ok()) policy = MakePolicy(policies::kDefaultPolicy);
  ASSERT_TRUE(policy.ok()) << policy.status();
  if (advance) {
    framework::CycleOutcome first =
        framework::RunCycle(original.Snapshot(), *policy);
    for (const auto& b : first.binds) {
      original.AssumeBound(first.cluster.tasks[b.task].pod->Key(),
                           first.cluster.nodes[b.node].name());
    }
    original.KeepDecisions(first.cluster);
    counts.assumed += original.AssumedCount();
    counts.kept += original.KeptCount();
    policy = MakePolicy(dump.policy);
    if (!policy.ok()) policy = MakePolicy(policies::kDefaultPolicy);
  }
  ++counts.dumps;

  const std::string text = WriteSnapshotList(original);
  cache::Cache copy(dump.scheduler_name, clock);
  warnings.clear();
  absl::Status loaded = LoadSnapshot(text, "written.json", copy, &warnings);
  ASSERT_TRUE(loaded.ok()) << loaded << "\n" << text;
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  // Written again, it is the same text: nothing was lost on the way.
  EXPECT_EQ(WriteSnapshotList(copy), text);
  EXPECT_EQ(copy.AssumedCount(), 0);
  EXPECT_EQ(copy.KeptCount(), 0);

  api::ClusterInfo live = original.Snapshot();
  api::ClusterInfo replayed = copy.Snapshot();
  const std::string diff = Diff(BindingAsBound(live), replayed);
  EXPECT_EQ(diff, "") << text;

  auto replay_policy = MakePolicy(dump.policy);
  if (!replay_policy.ok()) replay_policy = MakePolicy(policies::kDefaultPolicy);
  ASSERT_TRUE(replay_policy.ok());
  framework::CycleOutcome a = framework::RunCycle(live, *policy);
  framework::CycleOutcome b = framework::RunCycle(replayed, *replay_policy);
  Decisions da = Decide(a);
  Decisions db = Decide(b);
  EXPECT_EQ(da, db);
  ++counts.cycles;
  counts.binds += static_cast<int>(da.binds.size());
  counts.evictions += static_cast<int>(da.evictions.size());
}

TEST(SnapshotWriterTest, EveryTestClusterRoundTripsAndDecidesTheSame) {
  std::vector<Dump> dumps = TestData();
  ASSERT_GT(dumps.size(), 100u);
  Counts counts;
  for (const Dump& d : dumps) {
    RoundTrip(d, /*advance=*/false, counts);
    RoundTrip(d, /*advance=*/true, counts);
  }
  std::cout << dumps.size() << " clusters, " << counts.refused
            << " refused by the decoders (cases about a refusal); "
            << counts.cycles << " cycles compared, " << counts.binds
            << " binds, " << counts.evictions << " evictions; after a cycle "
            << counts.assumed << " assumed binds, " << counts.kept
            << " kept phases written\n";
  EXPECT_GT(counts.assumed, 0);
  EXPECT_GT(counts.kept, 0);
  EXPECT_GT(counts.binds, 0);
  EXPECT_GT(counts.evictions, 0);
}

// The streaming JSON reader and the YAML reader agree: every test
// cluster, as one JSON List of its objects, loads the same cluster
// through both, or is refused by both for the same reason. (A leading
// document marker sends JSON text to the YAML reader: JSON is YAML.)
TEST(SnapshotWriterTest, JsonAndYamlReadersLoadEveryTestClusterTheSame) {
  auto reason = [](const absl::Status& s) {
    // "file:line: why" -> "why": the readers count lines differently.
    std::string m(s.message());
    size_t colon = m.find(": ");
    return colon == std::string::npos ? m : m.substr(colon + 2);
  };
  std::vector<Dump> dumps = TestData();
  for (Dump& d : dumps) {
    if (absl::StartsWith(absl::StripLeadingAsciiWhitespace(d.text), "{"))
      continue;
    auto docs = ParseYamlDocuments(d.text, d.where);
    ASSERT_TRUE(docs.ok()) << docs.status();
    json items = json::array();
    for (const auto& doc : *docs) {
      if (StringMember(doc.value, "kind") == "List" &&
          doc.value.contains("items") && doc.value["items"].is_array()) {
        for (const json& item : doc.value["items"]) items.push_back(item);
      } else {
        items.push_back(doc.value);
      }
    }
    d.text =
        json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}}.dump(2);
  }
  int compared = 0, refused = 0;
  for (const Dump& d : dumps) {
    SCOPED_TRACE(d.where);
    cache::Cache streamed(d.scheduler_name), parsed(d.scheduler_name);
    std::vector<std::string> streamed_warnings, parsed_warnings;
    absl::Status a =
        LoadSnapshot(d.text, "c.json", streamed, &streamed_warnings);
    absl::Status b =
        LoadSnapshot("---\n" + d.text, "c.json", parsed, &parsed_warnings);
    ASSERT_EQ(a.ok(), b.ok()) << a << " / " << b;
    EXPECT_EQ(streamed_warnings.size(), parsed_warnings.size());
    if (!a.ok()) {
      EXPECT_EQ(reason(a), reason(b));
      ++refused;
      continue;
    }
    EXPECT_EQ(WriteSnapshotList(streamed), WriteSnapshotList(parsed));
    ++compared;
  }
  EXPECT_GT(compared, 200);
  std::cout << compared << " clusters loaded the same, " << refused
            << " refused the same\n";
}

// Fields the repository's test data does not use.
constexpr char kEveryField[] = R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata: {name: team, labels: {tier: gold}}
- apiVersion: scheduling.k8s.io/v1
  kind: PriorityClass
  metadata: {name: low}
  value: 10
  globalDefault: true
  preemptionPolicy: Never
- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata: {name: late}
  volumeBindingMode: WaitForFirstConsumer
- apiVersion: scheduling.volcano.sh/v1beta1
  kind: Queue
  metadata: {name: q}
  spec:
    weight: 3
    priority: 2
    reclaimable: false
    capability: {cpu: 10, example.com/widget: 3}
    deserved: {memory: 1536Mi}
    guarantee: {resource: {cpu: 1500m}}
  status: {state: Closed}
- apiVersion: v1
  kind: Node
  metadata:
    name: n1
    labels: {kubernetes.io/hostname: n1, topology.kubernetes.io/zone: a}
  spec:
    unschedulable: true
    taints: [{key: k, effect: NoExecute}, {key: j, value: v, effect: PreferNoSchedule}]
  status:
    capacity: {cpu: 8, memory: 16Gi, pods: 110, example.com/widget: 5}
    conditions: [{type: Ready, status: "False"}]
- apiVersion: v1
  kind: Node
  metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}
  status:
    allocatable: {cpu: 7900m, memory: "16000000001", pods: 110}
- apiVersion: storage.k8s.io/v1
  kind: CSINode
  metadata: {name: n2}
  spec:
    drivers: [{name: csi.example.com, allocatable: {count: 2}}, {name: other}]
- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: pv1, labels: {topology.kubernetes.io/zone: a}}
  spec:
    storageClassName: fast
    claimRef: {namespace: team, name: data}
    csi: {driver: csi.example.com, volumeHandle: h1}
    nodeAffinity:
      required:
        nodeSelectorTerms:
        - matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [n2]}]
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: data, namespace: team}
  spec: {volumeName: pv1, storageClassName: fast}
  status: {phase: Bound}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata:
    name: w-1-scratch
    namespace: team
    annotations: {pv.kubernetes.io/bind-completed: "yes"}
    ownerReferences: [{apiVersion: v1, kind: Pod, name: w-1, uid: w1-uid, controller: true}]
    deletionTimestamp: "2024-01-01T00:00:00Z"
  spec: {volumeName: gone}
  status: {phase: Lost}
- apiVersion: scheduling.x-k8s.io/v1alpha1
  kind: PodGroup
  metadata: {name: sp, namespace: team, creationTimestamp: "2024-01-01T00:00:00.25Z",
             annotations: {shoal.dev/throughput: "1=2, 2=3.8, 3=5.1"}}
  spec: {minMember: 2, minResources: {cpu: 2}}
  status: {phase: Scheduled}
- apiVersion: scheduling.volcano.sh/v1beta1
  kind: PodGroup
  metadata: {name: vg, namespace: team, uid: vg-uid,
             annotations: {shoal.dev/resize-cost-seconds: "45",
                           shoal.dev/throughput: "2=1.9,4=3.5,8=6.125",
                           shoal.dev/progress: "12345.5"}}
  spec:
    minMember: 0
    minTaskMember: {ps: 1, worker: 2}
    queue: q
    priorityClassName: low
    networkTopology: {mode: hard, highestTierAllowed: 1}
- apiVersion: v1
  kind: Pod
  metadata:
    name: w-0
    namespace: team
    uid: w0-uid
    creationTimestamp: "2024-01-01T00:00:01Z"
    labels: {app: train, scheduling.x-k8s.io/pod-group: sp, volcano.sh/task-spec: worker, volcano.sh/preemptable: "false"}
    annotations: {volcano.sh/preemptable: "true"}
  spec:
    schedulerName: shoal
    hostNetwork: true
    preemptionPolicy: PreemptLowerPriority
    schedulingGates: [{name: wait}]
    resources: {requests: {cpu: "1"}}
    overhead: {cpu: 100m}
    initContainers:
    - name: setup
      resources: {requests: {cpu: 4, memory: 1Gi}}
    - name: sidecar
      restartPolicy: Always
      ports: [{containerPort: 9000, protocol: UDP}]
      resources: {limits: {cpu: 500m, example.com/widget: 1}}
    containers:
    - name: a
      ports: [{containerPort: 8080, hostIP: 10.0.0.1}]
      resources: {requests: {cpu: 1, memory: 2Gi}}
    - name: b
      resources: {requests: {memory: 1Gi}, limits: {memory: 3Gi, cpu: 2}}
    volumes:
    - {name: data, persistentVolumeClaim: {claimName: data}}
    - {name: scratch, ephemeral: {volumeClaimTemplate: {spec: {}}}}
    - {name: cfg, configMap: {name: c}}
    nodeSelector: {topology.kubernetes.io/zone: a}
    tolerations:
    - {operator: Exists}
    - {key: k, operator: Equal, value: v, effect: NoExecute}
    affinity:
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchFields: [{key: metadata.name, operator: NotIn, values: [n3]}]
          - {}
        preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 7
          preference: {matchExpressions: [{key: gpu, operator: Gt, values: ["2"]}]}
      podAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
        - labelSelector: {matchLabels: {app: train}}
          matchLabelKeys: [app]
          mismatchLabelKeys: [volcano.sh/task-spec, missing]
          topologyKey: kubernetes.io/hostname
          namespaceSelector: {matchExpressions: [{key: tier, operator: Exists}]}
      podAntiAffinity:
        preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 50
          podAffinityTerm:
            topologyKey: topology.kubernetes.io/zone
            namespaces: [z, b]
            namespaceSelector: {}
        requiredDuringSchedulingIgnoredDuringExecution:
        - {topologyKey: kubernetes.io/hostname}
    topologySpreadConstraints:
    - maxSkew: 2
      topologyKey: topology.kubernetes.io/zone
      whenUnsatisfiable: DoNotSchedule
      minDomains: 3
      nodeAffinityPolicy: Ignore
      nodeTaintsPolicy: Honor
      labelSelector: {matchExpressions: [{key: app, operator: In, values: [train, eval]}]}
      matchLabelKeys: [app]
    - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway}
- apiVersion: v1
  kind: Pod
  metadata:
    name: w-1
    namespace: team
    uid: w1-uid
    annotations: {scheduling.k8s.io/group-name: vg, volcano.sh/task-spec: ps}
    labels: {volcano.sh/preemptable: "false"}
  spec:
    schedulerName: shoal
    priority: 5
    nodeName: n2
    volumes: [{name: scratch, ephemeral: {volumeClaimTemplate: {}}}]
    containers: [{name: c, resources: {requests: {cpu: 1}}}]
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: w-2, namespace: team, deletionTimestamp: "2024-01-01T00:00:00Z",
             annotations: {scheduling.k8s.io/group-name: vg}}
  spec:
    schedulerName: shoal
    nodeName: n2
    priorityClassName: system-node-critical
    containers: [{name: c, resources: {requests: {cpu: 1}}}]
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: done, namespace: team, annotations: {scheduling.k8s.io/group-name: vg}}
  spec:
    schedulerName: shoal
    nodeName: n2
    containers: [{name: c}]
  status: {phase: Succeeded}
- apiVersion: v1
  kind: Pod
  metadata: {name: bound, namespace: other}
  spec:
    schedulerName: default-scheduler
    nodeName: n2
    containers: [{name: c, resources: {requests: {cpu: 2}}}]
)";

TEST(SnapshotWriterTest, EveryFieldTheDecodersReadRoundTrips) {
  Counts counts;
  RoundTrip(
      {"every-field.yaml", kEveryField, policies::kDefaultPolicy, "shoal"},
      /*advance=*/false, counts);
  RoundTrip(
      {"every-field.yaml", kEveryField, policies::kDefaultPolicy, "shoal"},
      /*advance=*/true, counts);
  EXPECT_EQ(counts.refused, 0);
  EXPECT_EQ(counts.cycles, 2);
}

TEST(SnapshotWriterTest, WritesAListOfKubernetesObjects) {
  cache::Cache c("shoal");
  std::vector<std::string> warnings;
  ASSERT_TRUE(LoadSnapshot(ReadFile("e2e/snapshots/gang-deadlock.yaml"),
                           "gang-deadlock.yaml", c, &warnings)
                  .ok());
  json list = json::parse(WriteSnapshotList(c));
  EXPECT_EQ(list["apiVersion"], "v1");
  EXPECT_EQ(list["kind"], "List");
  ASSERT_FALSE(list["items"].empty());
  for (const json& item : list["items"]) {
    EXPECT_TRUE(item.contains("apiVersion")) << item.dump();
    EXPECT_TRUE(item.contains("kind")) << item.dump();
    EXPECT_TRUE(item["metadata"].contains("name")) << item.dump();
  }
}

TEST(SnapshotWriterTest, AssumedBindsAndKeptPhasesAreWrittenAsTheSourceWould) {
  constexpr char kCluster[] = R"(
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: scheduling.x-k8s.io/v1alpha1
  kind: PodGroup
  metadata: {name: pg, namespace: team, uid: pg-uid}
  spec: {minMember: 1, minResources: {cpu: 1}}
- apiVersion: v1
  kind: Pod
  metadata:
    name: w-0
    namespace: team
    labels: {scheduling.x-k8s.io/pod-group: pg}
  spec:
    schedulerName: shoal
    containers: [{name: c, resources: {requests: {cpu: 1}}}]
)";
  json items = json::array();
  auto docs = ParseYamlDocuments(kCluster, "c.yaml");
  ASSERT_TRUE(docs.ok());
  json list = {
      {"apiVersion", "v1"}, {"kind", "List"}, {"items", (*docs)[0].value}};
  cache::Cache c("shoal");
  std::vector<std::string> warnings;
  ASSERT_TRUE(LoadSnapshot(list.dump(), "c.json", c, &warnings).ok());
  c.AssumeBound("team/w-0", "n1");
  api::ClusterInfo decided = c.Snapshot();
  decided.jobs[0].phase = api::PodGroupPhase::kRunning;
  c.KeepDecisions(decided);
  ASSERT_EQ(c.KeptCount(), 1);

  json out = json::parse(WriteSnapshotList(c));
  const json* pod = nullptr;
  const json* group = nullptr;
  for (const json& item : out["items"]) {
    if (item["kind"] == "Pod") pod = &item;
    if (item["kind"] == "PodGroup") group = &item;
  }
  ASSERT_NE(pod, nullptr);
  ASSERT_NE(group, nullptr);
  EXPECT_EQ((*pod)["spec"]["nodeName"], "n1");
  EXPECT_EQ((*pod)["status"]["phase"], "Pending");
  EXPECT_EQ((*pod)["metadata"]["annotations"][kGroupAnnotation], "pg");
  EXPECT_EQ((*group)["apiVersion"], "scheduling.x-k8s.io/v1alpha1");
  EXPECT_EQ((*group)["status"]["phase"], "Running");
  EXPECT_FALSE((*group)["spec"].contains("queue"));
}

}  // namespace
}  // namespace shoal::kube
