// What a cycle decided about a PodGroup is kept until the source shows
// it, or shows something newer, and dropped with the PodGroup.
#include "scheduler/cache/cache.h"

#include "gtest/gtest.h"
#include "scheduler/api/resource_name.h"

namespace shoal::cache {
namespace {

using api::PodGroupPhase;

api::JobInfo Group(const std::string& uid, PodGroupPhase phase) {
  api::JobInfo g;
  g.ns = "ml";
  g.name = "train";
  g.uid = uid;
  g.min_member = 2;
  g.phase = phase;
  return g;
}

// The cycle's verdict on the PodGroup: the snapshot with `phase` decided.
api::ClusterInfo Decided(const Cache& cache, PodGroupPhase phase,
                         int32_t elastic_target = 0) {
  api::ClusterInfo cluster = cache.Snapshot();
  for (api::JobInfo& job : cluster.jobs) {
    job.phase = phase;
    job.elastic_target = elastic_target;
  }
  return cluster;
}

PodGroupPhase PhaseOf(const Cache& cache) {
  return cache.Snapshot().jobs.at(0).phase;
}

TEST(CacheTest, AdmissionIsKeptUntilTheSourceShowsIt) {
  Cache cache("shoal");
  cache.UpsertPodGroup(Group("u1", PodGroupPhase::kPending));
  cache.KeepDecisions(Decided(cache, PodGroupPhase::kInqueue, 5));
  // The status write has not come back: the next cycle still sees it
  // admitted, and the elastic target it was given.
  EXPECT_EQ(PhaseOf(cache), PodGroupPhase::kInqueue);
  EXPECT_EQ(cache.Snapshot().jobs[0].elastic_target, 5);
  EXPECT_EQ(cache.KeptCount(), 1);
  // Another change to the PodGroup (its spec) still shows the old phase.
  cache.UpsertPodGroup(Group("u1", PodGroupPhase::kPending));
  EXPECT_EQ(PhaseOf(cache), PodGroupPhase::kInqueue);
  // The write comes back: the source's view wins from now on.
  cache.UpsertPodGroup(Group("u1", PodGroupPhase::kInqueue));
  EXPECT_EQ(cache.KeptCount(), 0);
  EXPECT_EQ(PhaseOf(cache), PodGroupPhase::kInqueue);
  // The elastic target, which the schema may prune, stays.
  EXPECT_EQ(cache.Snapshot().jobs[0].elastic_target, 5);
}

TEST(CacheTest, AnEarlierWriteOfOursComingBackDoesNotUndoALaterDecision) {
  Cache cache("shoal");
  cache.UpsertPodGroup(Group("u1", PodGroupPhase::kPending));
  cache.KeepDecisions(Decided(cache, PodGroupPhase::kInqueue));
  cache.KeepDecisions(Decided(cache, PodGroupPhase::kRunning));
  cache.UpsertPodGroup(
      Group("u1", PodGroupPhase::kInqueue));  // the first write
  EXPECT_EQ(PhaseOf(cache), PodGroupPhase::kRunning);
  cache.UpsertPodGroup(Group("u1", PodGroupPhase::kRunning));  // the second
  EXPECT_EQ(cache.KeptCount(), 0);
}

TEST(CacheTest, AnotherWritersPhaseSupersedesTheDecision) {
  Cache cache("shoal");
  cache.UpsertPodGroup(Group("u1", PodGroupPhase::kPending));
  cache.KeepDecisions(Decided(cache, PodGroupPhase::kInqueue));
  cache.UpsertPodGroup(
      Group("u1", PodGroupPhase::kCompleted));  // e.g. a job controller
  EXPECT_EQ(PhaseOf(cache), PodGroupPhase::kCompleted);
  EXPECT_EQ(cache.KeptCount(), 0);
}

TEST(CacheTest, DecisionsGoWithTheirPodGroup) {
  Cache cache("shoal");
  cache.UpsertPodGroup(Group("u1", PodGroupPhase::kPending));
  cache.KeepDecisions(Decided(cache, PodGroupPhase::kInqueue, 3));
  // Recreated under the same name: a new PodGroup, nothing decided yet.
  cache.UpsertPodGroup(Group("u2", PodGroupPhase::kPending));
  EXPECT_EQ(PhaseOf(cache), PodGroupPhase::kPending);
  EXPECT_EQ(cache.Snapshot().jobs[0].elastic_target, 0);
  cache.KeepDecisions(Decided(cache, PodGroupPhase::kInqueue));
  cache.DeletePodGroup("ml/train");
  EXPECT_EQ(cache.KeptCount(), 0);
  cache.UpsertPodGroup(Group("u2", PodGroupPhase::kPending));
  EXPECT_EQ(PhaseOf(cache), PodGroupPhase::kPending);
  // A verdict on a PodGroup deleted while the cycle ran is not kept.
  api::ClusterInfo late = Decided(cache, PodGroupPhase::kInqueue);
  cache.DeletePodGroup("ml/train");
  cache.KeepDecisions(late);
  EXPECT_EQ(cache.KeptCount(), 0);
}

TEST(CacheTest, ExportHoldsWhatWasFedWithAssumedBindsAndKeptDecisions) {
  Cache cache("shoal");
  cache.UpsertPodGroup(Group("u1", PodGroupPhase::kPending));
  auto pod = std::make_shared<api::PodInfo>();
  pod->ns = "ml";
  pod->name = "w-0";
  pod->group = "train";
  pod->scheduler_name = "shoal";
  pod->placement = std::make_shared<api::PlacementConstraints>();
  cache.UpsertPod(pod, /*has_priority=*/true);
  auto node = std::make_shared<api::NodeSpec>();
  node->name = "n1";
  cache.UpsertNode(node);
  cache.UpsertNamespace(
      "ml", api::Labels(std::vector<std::pair<std::string, std::string>>{
                {"team", "a"}}));
  cache.AssumeBound("ml/w-0", "n1");
  cache.KeepDecisions(Decided(cache, PodGroupPhase::kInqueue, 4));

  // A lone pod of the default queue joins the group, and a queue.
  auto lone = std::make_shared<api::PodInfo>(*pod);
  lone->name = "lone";
  lone->group.clear();
  cache.UpsertPod(lone, true);
  api::QueueInfo q;
  q.name = "gpu";
  cache.UpsertQueue(q);
  const api::ClusterInfo snapshot = cache.Snapshot();
  EXPECT_EQ(snapshot.jobs.size(), 2u);
  EXPECT_EQ(snapshot.queues.size(), 2u);  // gpu and the implicit default
  EXPECT_TRUE(api::IndexesMatchPositions(snapshot));
  cache.DeletePod("ml/lone");

  CacheContents out = cache.Export();
  EXPECT_EQ(out.scheduler_name, "shoal");
  ASSERT_EQ(out.nodes.size(), 1u);
  EXPECT_EQ(out.nodes[0], node);
  ASSERT_EQ(out.pods.size(), 1u);
  EXPECT_EQ(out.pods[0].pod, pod);  // as fed: the node is beside it
  EXPECT_TRUE(out.pods[0].has_priority);
  EXPECT_EQ(out.pods[0].assumed_node, "n1");
  ASSERT_EQ(out.pod_groups.size(), 1u);
  EXPECT_EQ(out.pod_groups[0].phase, PodGroupPhase::kInqueue);
  EXPECT_EQ(out.pod_groups[0].elastic_target, 4);
  ASSERT_EQ(out.namespaces.size(), 1u);
  EXPECT_EQ(out.namespaces[0].first, "ml");
  // The source shows the bind: nothing is assumed any more.
  auto bound = std::make_shared<api::PodInfo>(*pod);
  bound->node_name = "n1";
  bound->status = api::TaskStatus::kBound;
  cache.UpsertPod(bound, true);
  EXPECT_EQ(cache.Export().pods[0].assumed_node, "");
}

// --- Volumes: a pending pod's claims resolved at snapshot time.

std::shared_ptr<api::PodInfo> PodWithClaims(
    const std::string& name, std::vector<api::VolumeClaimRef> claims) {
  auto pod = std::make_shared<api::PodInfo>();
  pod->ns = "ml";
  pod->name = name;
  pod->uid = name + "-uid";
  pod->scheduler_name = "shoal";
  pod->volume_claims = std::move(claims);
  auto placement = std::make_shared<api::PlacementConstraints>();
  placement->ComputeFingerprint();
  pod->placement = std::move(placement);
  return pod;
}

api::PersistentVolumeClaim Claim(const std::string& name,
                                 const std::string& volume,
                                 const std::string& storage_class = "") {
  api::PersistentVolumeClaim c;
  c.ns = "ml";
  c.name = name;
  c.volume_name = volume;
  c.bound = !volume.empty();
  c.storage_class = storage_class;
  return c;
}

api::NodeSelectorTerm HostIs(const std::string& node) {
  api::NodeSelectorTerm t;
  t.match_expressions.push_back(
      {"kubernetes.io/hostname", api::SelectorOperator::kIn, {node}});
  return t;
}

api::PersistentVolume PinnedVolume(const std::string& name,
                                   const std::string& node) {
  api::PersistentVolume pv;
  pv.name = name;
  pv.node_affinity = std::vector<api::NodeSelectorTerm>{HostIs(node)};
  return pv;
}

// The snapshot's copy of the one pod.
const api::PodInfo& Only(const api::ClusterInfo& cluster) {
  EXPECT_EQ(cluster.tasks.size(), 1u);
  return *cluster.tasks.at(0).pod;
}

TEST(CacheVolumesTest, MissingClaimsInKubeSchedulersWords) {
  Cache cache("shoal");
  cache.UpsertPod(PodWithClaims("w-0", {{"data", false}}), true);
  EXPECT_EQ(Only(cache.Snapshot()).volume_refusal,
            "pod ml/w-0: persistentvolumeclaim \"data\" not found");
  cache.DeletePod("ml/w-0");
  cache.UpsertPod(PodWithClaims("w-0", {{"w-0-scratch", true}}), true);
  EXPECT_EQ(Only(cache.Snapshot()).volume_refusal,
            "pod ml/w-0: waiting for ephemeral volume controller to create the "
            "persistentvolumeclaim \"w-0-scratch\"");
  // Created by someone else than the ephemeral volume controller for it.
  cache.UpsertPersistentVolumeClaim(Claim("w-0-scratch", "pv-1"));
  cache.UpsertPersistentVolume(PinnedVolume("pv-1", "node-a"));
  EXPECT_EQ(Only(cache.Snapshot()).volume_refusal,
            "pod ml/w-0: PVC ml/w-0-scratch was not created for pod ml/w-0 "
            "(pod is not owner)");
  api::PersistentVolumeClaim owned = Claim("w-0-scratch", "pv-1");
  owned.owner_uid = "w-0-uid";
  cache.UpsertPersistentVolumeClaim(owned);
  EXPECT_EQ(Only(cache.Snapshot()).volume_refusal, "");
  owned.deleting = true;
  cache.UpsertPersistentVolumeClaim(owned);
  EXPECT_EQ(
      Only(cache.Snapshot()).volume_refusal,
      "pod ml/w-0: persistentvolumeclaim \"w-0-scratch\" is being deleted");
}

TEST(CacheVolumesTest, UnboundClaimsWait) {
  Cache cache("shoal");
  cache.UpsertPod(PodWithClaims("w-0", {{"data", false}}), true);
  cache.UpsertPersistentVolumeClaim(Claim("data", "", "local"));
  // No such class, or an Immediate one: kube-scheduler's words.
  const std::string immediate =
      "pod ml/w-0: pod has unbound immediate PersistentVolumeClaims "
      "(persistentvolumeclaim "
      "\"data\" waits for its volume to be bound)";
  EXPECT_EQ(Only(cache.Snapshot()).volume_refusal, immediate);
  cache.UpsertStorageClass({"local", api::VolumeBindingMode::kImmediate});
  EXPECT_EQ(Only(cache.Snapshot()).volume_refusal, immediate);
  cache.UpsertStorageClass(
      {"local", api::VolumeBindingMode::kWaitForFirstConsumer});
  EXPECT_EQ(Only(cache.Snapshot()).volume_refusal,
            "pod ml/w-0 uses persistentvolumeclaim \"data\", which is not "
            "bound yet (storage "
            "class \"local\" binds on first consumer; Shoal does not bind "
            "volumes yet)");
  // Bound to a volume the cache does not have.
  cache.UpsertPersistentVolumeClaim(Claim("data", "pv-9", "local"));
  EXPECT_EQ(Only(cache.Snapshot()).volume_refusal,
            "pod ml/w-0: persistentvolumeclaim \"data\" is bound to "
            "persistentvolume \"pv-9\", "
            "which does not exist (node(s) unavailable due to one or more "
            "pvc(s) bound to "
            "non-existent pv(s))");
  cache.DeletePersistentVolumeClaim("ml/data");
  EXPECT_EQ(Only(cache.Snapshot()).volume_refusal,
            "pod ml/w-0: persistentvolumeclaim \"data\" not found");
}

TEST(CacheVolumesTest, BoundVolumesConstrainACopyOfThePlacement) {
  Cache cache("shoal");
  auto pod = PodWithClaims(
      "w-0", {{"data", false}, {"logs", false}, {"plain", false}});
  cache.UpsertPod(pod, true);
  cache.UpsertPersistentVolumeClaim(Claim("data", "pv-a"));
  cache.UpsertPersistentVolumeClaim(Claim("logs", "pv-z"));
  cache.UpsertPersistentVolumeClaim(Claim("plain", "pv-any"));
  cache.UpsertPersistentVolume(PinnedVolume("pv-a", "node-a"));
  api::PersistentVolume zoned;
  zoned.name = "pv-z";
  zoned.labels = api::Labels(std::vector<std::pair<std::string, std::string>>{
      {"topology.kubernetes.io/zone", "z1__z2"}});
  cache.UpsertPersistentVolume(zoned);
  api::PersistentVolume anywhere;
  anywhere.name = "pv-any";
  cache.UpsertPersistentVolume(anywhere);

  api::ClusterInfo cluster = cache.Snapshot();
  const api::PodInfo& copy = Only(cluster);
  EXPECT_EQ(copy.volume_refusal, "");
  const api::PlacementConstraints& c = *copy.placement;
  ASSERT_EQ(c.volume_node_affinity.size(), 1u);
  EXPECT_EQ(c.volume_node_affinity[0],
            std::vector<api::NodeSelectorTerm>{HostIs("node-a")});
  EXPECT_EQ(c.volume_zones.size(), 1u);
  // The pod's own constraints, shared with others, are untouched.
  EXPECT_TRUE(pod->placement->volume_node_affinity.empty());
  EXPECT_NE(c.fingerprint, pod->placement->fingerprint);
  EXPECT_FALSE(c == *pod->placement);
  // Which nodes the constraints let through.
  auto on = [&](const std::string& node,
                std::vector<std::pair<std::string, std::string>> labels) {
    labels.emplace_back("kubernetes.io/hostname", node);
    api::Labels l(std::move(labels));
    return api::MatchesAllOf(c.volume_node_affinity, l, node) &&
           api::MatchesAllOf(c.volume_zones, l, node);
  };
  EXPECT_TRUE(on("node-a", {{"topology.kubernetes.io/zone", "z2"}}));
  EXPECT_TRUE(on("node-a", {}));  // a node with no zone label at all
  EXPECT_FALSE(on("node-a", {{"topology.kubernetes.io/zone", "z3"}}));
  EXPECT_FALSE(on("node-b", {{"topology.kubernetes.io/zone", "z1"}}));

  // Once bound, the pod's claims no longer matter: it is not resolved.
  auto bound = std::make_shared<api::PodInfo>(*pod);
  bound->node_name = "node-b";
  bound->status = api::TaskStatus::kRunning;
  cache.DeletePersistentVolumeClaim("ml/data");
  cache.UpsertPod(bound, true);
  EXPECT_EQ(Only(cache.Snapshot()).volume_refusal, "");
  EXPECT_EQ(Only(cache.Snapshot()).placement, pod->placement);
}

TEST(CacheVolumesTest, OtherSchedulersPodsAreNotResolved) {
  Cache cache("shoal");
  auto pod = PodWithClaims("web", {{"missing", false}});
  pod->scheduler_name = "default-scheduler";
  cache.UpsertPod(pod, true);
  EXPECT_TRUE(cache.Snapshot().tasks.empty());
}

TEST(CacheVolumesTest, CsiVolumesAndNodeLimits) {
  Cache cache("shoal");
  auto node = std::make_shared<api::NodeSpec>();
  node->name = "n0";
  cache.UpsertNode(node);
  cache.UpsertCsiNode({"n0", {{"ebs", 1}}});
  auto csi = [](const std::string& name, const std::string& handle) {
    api::PersistentVolume pv;
    pv.name = name;
    pv.csi_driver = "ebs";
    pv.csi_handle = handle;
    return pv;
  };
  cache.UpsertPersistentVolume(csi("pv-a", "vol-a"));
  cache.UpsertPersistentVolume(csi("pv-a2", "vol-a"));  // the same volume
  api::PersistentVolume in_tree;
  in_tree.name = "pv-ebs";
  cache.UpsertPersistentVolume(in_tree);
  cache.UpsertPersistentVolumeClaim(Claim("a", "pv-a"));
  cache.UpsertPersistentVolumeClaim(Claim("a2", "pv-a2"));
  cache.UpsertPersistentVolumeClaim(Claim("old", "pv-ebs"));
  // A pending pod of ours: its unique CSI volumes.
  auto pending =
      PodWithClaims("w-0", {{"a", false}, {"a2", false}, {"old", false}});
  cache.UpsertPod(pending, true);
  // Another scheduler's pod on n0 holds its attachment.
  auto running = PodWithClaims("web", {{"a", false}});
  running->scheduler_name = "default-scheduler";
  running->node_name = "n0";
  running->status = api::TaskStatus::kRunning;
  cache.UpsertPod(running, true);
  api::ClusterInfo c = cache.Snapshot();
  EXPECT_EQ(Only(c).csi_volumes,
            (std::vector<api::CsiVolume>{{"ebs", "vol-a"}}));
  ASSERT_NE(c.nodes[0].volume_limits(), nullptr);
  EXPECT_EQ(*c.nodes[0].volume_limits(),
            (std::vector<api::VolumeLimit>{{"ebs", 1}}));
  EXPECT_EQ(c.nodes[0].AttachedVolumeCount(), 1);
  cache.DeleteCsiNode("n0");
  EXPECT_EQ(cache.Snapshot().nodes[0].volume_limits(), nullptr);
  cache.UpsertCsiNode({"n0", {}});  // no count: no limit
  EXPECT_EQ(cache.Snapshot().nodes[0].volume_limits(), nullptr);
}

// The partial-gang rule's count (framework/partial_gang_release.h):
// consecutive cycles that ended with the gang partly bound, starting over
// when one does not, and gone with the PodGroup.
TEST(CacheTest, CyclesAPodGroupEndedPartlyBoundAreCounted) {
  Cache cache("shoal");
  cache.UpsertPodGroup(Group("u1", PodGroupPhase::kRunning));
  auto ended = [&](int bound) {
    api::ClusterInfo cluster = cache.Snapshot();
    cluster.jobs.at(0)
        .count_by_status[static_cast<int>(api::TaskStatus::kRunning)] = bound;
    cache.KeepDecisions(cluster);
    return cache.Snapshot().jobs.at(0).cycles_below_minimum;
  };
  EXPECT_EQ(ended(1), 1);
  EXPECT_EQ(ended(1), 2);
  EXPECT_EQ(ended(2), 0);  // minMember 2 met
  EXPECT_EQ(ended(1), 1);
  EXPECT_EQ(ended(0), 0);  // nothing bound: nothing held
  EXPECT_EQ(ended(1), 1);
  cache.UpsertPodGroup(Group("u2", PodGroupPhase::kRunning));  // recreated
  EXPECT_EQ(cache.Snapshot().jobs.at(0).cycles_below_minimum, 0);
}

// A Workload's gang is one job per (podGroup, replica key); a changed
// minCount (the beta plan) is the gang's minimum from the next snapshot;
// what partial-gang release counts is kept across snapshots as for a
// PodGroup.
TEST(CacheTest, WorkloadGangsFollowTheirWorkload) {
  Cache cache("shoal");
  api::WorkloadSpec w;
  w.ns = "ml";
  w.name = "train";
  w.uid = "w1";
  w.pod_groups = {{"workers", true, 4}};
  cache.UpsertWorkload(w);
  for (const char* name : {"a", "b", "c"}) {
    auto pod = std::make_shared<api::PodInfo>();
    pod->ns = "ml";
    pod->name = name;
    pod->scheduler_name = "shoal";
    pod->workload_ref = {"train", "workers",
                         std::string(name) == "c" ? "1" : ""};
    pod->group = pod->workload_ref.GangName();
    cache.UpsertPod(pod, true);
  }
  api::ClusterInfo c = cache.Snapshot();
  ASSERT_EQ(c.jobs.size(), 2u);
  EXPECT_EQ(c.jobs[0].Key(), "ml/train/workers");
  EXPECT_EQ(c.jobs[0].tasks.size(), 2u);
  EXPECT_EQ(c.jobs[0].min_member, 4);
  EXPECT_EQ(c.jobs[0].source, api::GroupSource::kWorkload);
  EXPECT_EQ(c.jobs[1].Key(), "ml/train/workers/1");
  c.jobs[0].count_by_status[static_cast<int>(api::TaskStatus::kRunning)] = 1;
  cache.KeepDecisions(c);
  EXPECT_EQ(cache.Snapshot().jobs[0].cycles_below_minimum, 1);
  w.pod_groups[0].min_count = 2;
  cache.UpsertWorkload(w);
  EXPECT_EQ(cache.Snapshot().jobs[0].min_member, 2);
  cache.DeleteWorkload("ml/train");
  c = cache.Snapshot();
  EXPECT_TRUE(c.jobs[0].group_missing);
  EXPECT_EQ(c.jobs[0].missing_reason,
            "workload ml/train does not exist; the pods that name it "
            "(spec.workloadRef) wait until it is created");
}

// A Queue decoded before a resource name was first seen (its GPU nodes
// listed after it) leaves that resource unlimited, as it leaves every
// resource it does not name; it is not read as 0 (none allowed).
TEST(CacheTest, AQueueLeavesResourcesNamedAfterItUnlimited) {
  api::QueueInfo q;
  q.name = "capped";
  api::Resource cap;  // as the decoder spells it: every known name, cpu set
  for (int id = 0; id < api::ResourceNameCount(); ++id)
    cap.Set(static_cast<api::ResourceId>(id), api::kUnlimited);
  cap.Set(api::kCpu, 4000);
  q.capability = cap;
  q.deserved = cap;
  Cache cache("shoal");
  cache.UpsertQueue(q);
  api::ResourceId later =
      *api::InternResourceName("example.com/seen-after-the-queue");
  const api::QueueInfo& snap = cache.Snapshot().queues.at(0);
  EXPECT_EQ(snap.capability->Get(later), api::kUnlimited);
  EXPECT_EQ(snap.deserved->Get(later), api::kUnlimited);
  EXPECT_EQ(snap.capability->Get(api::kCpu), 4000);
}

}  // namespace
}  // namespace shoal::cache

namespace shoal::cache {
namespace {

// A pod joining a scheduling.k8s.io PodGroup by spec.schedulingGroup on a
// server that serves no PodGroup version Shoal reads waits saying so,
// not that its group is missing.
TEST(CacheTest, APodGroupOfAVersionNotServedIsNamedAsSuch) {
  Cache cache("shoal");
  auto pod = std::make_shared<api::PodInfo>();
  pod->ns = "ml";
  pod->name = "w-0";
  pod->scheduler_name = "shoal";
  pod->group = "train";
  pod->in_scheduling_group = true;
  cache.UpsertPod(pod, true);
  api::ClusterInfo c = cache.Snapshot();
  ASSERT_EQ(c.jobs.size(), 1u);
  EXPECT_TRUE(c.jobs[0].group_missing);
  EXPECT_EQ(c.jobs[0].missing_reason, "");  // the usual "does not exist"
  cache.SetKubePodGroupVersion("");
  c = cache.Snapshot();
  EXPECT_TRUE(c.jobs[0].group_missing);
  EXPECT_EQ(c.jobs[0].missing_reason,
            "podgroup ml/train cannot be read: the API server serves no "
            "scheduling.k8s.io PodGroup version Shoal reads (v1beta1, "
            "v1alpha3, v1alpha2); its pods (spec.schedulingGroup) wait until "
            "one is served");
}

}  // namespace
}  // namespace shoal::cache
