// The live picture of the cluster, fed by a source (the Kubernetes watch,
// the simulator, a snapshot file) that it never knows about. Thread-safe.
// Snapshot() hands a session its own consistent copy.
//
// A bind Shoal has sent is *assumed*: the pod counts as on its node until
// the source reports the pod bound, so the next cycle never books the
// same room twice.
//
// Likewise what a cycle decided about a PodGroup that later cycles read
// back (its phase, which is admission; its elastic target) is *kept*
// (KeepDecisions) rather than waited for: the status write that tells the
// API server may be slow, refused, or pruned by the CRD's schema. A kept
// phase gives way once the source shows it, or shows a phase of someone
// else's making; everything kept about a PodGroup goes when it is
// deleted or recreated (a new uid).
//
// Snapshots are incremental, as kube-scheduler's UpdateSnapshot: the
// cycle's model is updated from what changed since the last cycle, not
// rebuilt from every object under the lock. The cache keeps the cluster
// it built last (the model) and logs what changed since. Pods, nodes and
// PodGroups updated in place, another scheduler's pods of no PodGroup
// coming and going, our pods coming and going in a PodGroup the model
// has a job for, and our pods of no PodGroup coming and going (a job of
// one joins or leaves where the builder puts it, the jobs after it
// renumbered) are patched into it (ClusterPatch: only the nodes and
// jobs they touch are recounted). Each pod's derived view (priority from
// its class, the assumed node, its claims and CSI volumes) is cached
// with the pod and redone only when the pod or its assumed bind
// changes. Anything else moves nodes or jobs, or is rare (a node or
// PodGroup added or deleted, a pod moving between jobs, a queue, a
// namespace, a CSINode, a resource name first seen), and makes the next
// snapshot assemble the model again from the cached views; a priority
// class, claim, volume or storage class changing also derives every pod
// again. So does a tenth of the pods changing at once, where that is
// cheaper. A session gets its own copy of the model, made outside the
// lock; SnapshotFromScratch() is what it must equal.
#ifndef SHOAL_SCHEDULER_CACHE_CACHE_H_
#define SHOAL_SCHEDULER_CACHE_CACHE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "scheduler/api/cluster_info.h"
#include "scheduler/api/composite_pod_group.h"
#include "scheduler/api/priority_class.h"
#include "scheduler/api/volume.h"
#include "scheduler/cache/device_objects.h"

namespace shoal::cache {

// Everything a Cache holds, as a source fed it, for writing it back out
// (kube::WriteSnapshotList). Every list is sorted by key.
struct CacheContents {
  std::string scheduler_name;
  std::vector<std::shared_ptr<const api::NodeSpec>> nodes;
  struct Pod {
    std::shared_ptr<const api::PodInfo> pod;
    bool has_priority = false;  // as UpsertPod was told
    // The node a bind was sent to and the source does not show yet
    // (AssumeBound), or "".
    std::string assumed_node;
  };
  std::vector<Pod> pods;
  // With the kept phase and elastic target applied, as Snapshot() does.
  std::vector<api::JobInfo> pod_groups;
  std::vector<api::QueueInfo> queues;
  std::vector<std::pair<std::string, api::Labels>> namespaces;
  std::vector<api::PriorityClass> priority_classes;
  std::vector<api::PersistentVolumeClaim> claims;
  std::vector<api::PersistentVolume> volumes;
  std::vector<api::StorageClass> storage_classes;
  std::vector<api::CsiNode> csi_nodes;  // only those with a limit
  std::vector<api::HyperNodeSpec> hypernodes;
  std::vector<api::WorkloadSpec> workloads;
  std::vector<api::CompositePodGroupSpec> composite_pod_groups;
  std::vector<api::ResourceSlice> resource_slices;
  std::vector<api::DeviceClass> device_classes;
  std::vector<api::DeviceTaintRule> device_taint_rules;
  std::vector<api::ResourceClaim> resource_claims;  // assumed writes applied
};

class Cache {
 public:
  // Only pods whose spec.schedulerName is `scheduler_name` are Shoal's to
  // place; every other pod on a node just takes room.
  // `clock` stamps each snapshot (the simulator and the replay pass their
  // own).
  explicit Cache(std::string scheduler_name,
                 std::function<absl::Time()> clock = absl::Now);

  void UpsertNode(std::shared_ptr<const api::NodeSpec> node);
  void DeleteNode(const std::string& name);
  // `has_priority`: spec.priority was set; otherwise the pod's priority
  // comes from its class (or the global default) at snapshot time.
  void UpsertPod(std::shared_ptr<const api::PodInfo> pod, bool has_priority);
  void DeletePod(const std::string& key);
  void UpsertPodGroup(api::JobInfo group);
  void DeletePodGroup(const std::string& key);
  // What a status write of the PodGroup's phase does, once the API server
  // has it (the replay and the simulator play that part themselves).
  void SetPodGroupPhase(const std::string& key, api::PodGroupPhase phase);
  // After a cycle: keep its verdict on every PodGroup (see above).
  void KeepDecisions(const api::ClusterInfo& cluster);
  // PodGroups whose decided phase the source does not show yet.
  int KeptCount() const;
  void UpsertQueue(api::QueueInfo queue);
  void DeleteQueue(const std::string& name);
  // A Namespace's labels, for affinity terms' namespaceSelector.
  void UpsertNamespace(const std::string& name, api::Labels labels);
  void DeleteNamespace(const std::string& name);
  void UpsertPriorityClass(api::PriorityClass pc);
  void DeletePriorityClass(const std::string& name);
  // What a pending pod's claims resolve to at snapshot time (see
  // ResolveClaims): PersistentVolumeClaims by "namespace/name",
  // PersistentVolumes and StorageClasses by name.
  void UpsertPersistentVolumeClaim(api::PersistentVolumeClaim claim);
  void DeletePersistentVolumeClaim(const std::string& key);
  void UpsertPersistentVolume(api::PersistentVolume pv);
  void DeletePersistentVolume(const std::string& name);
  void UpsertStorageClass(api::StorageClass sc);
  void DeleteStorageClass(const std::string& name);
  // A node's CSI attach limits (NodeVolumeLimits), by node name.
  void UpsertCsiNode(api::CsiNode node);
  void DeleteCsiNode(const std::string& name);

  // Volcano's HyperNodes: the network's domains (api/network_topology.h),
  // rebuilt for the next snapshot when they or the nodes change.
  void UpsertHyperNode(api::HyperNodeSpec hypernode);
  void DeleteHyperNode(const std::string& name);
  // Kubernetes' Workloads (api/workload.h): the pods that name one by
  // spec.workloadRef make a job per gang (podGroup, podGroupReplicaKey)
  // when the snapshot is assembled (workload_jobs.h).
  void UpsertWorkload(api::WorkloadSpec workload);
  void DeleteWorkload(const std::string& key);
  // Kubernetes' CompositePodGroups: each tree of them over PodGroups
  // naming a parent is one job when the snapshot is assembled
  // (composite_jobs.h).
  void UpsertCompositePodGroup(api::CompositePodGroupSpec group);
  void DeleteCompositePodGroup(const std::string& key);
  // Which scheduling.k8s.io PodGroup version is watched ("" when the API
  // server serves none Shoal reads): a pod naming a PodGroup by
  // spec.schedulingGroup then waits saying so, not that the group is
  // missing.
  void SetKubePodGroupVersion(std::string api_version);
  // Dynamic Resource Allocation: slices by name, classes by name, claims
  // by "namespace/name" (api/devices.h).
  void UpsertDeviceTaintRule(api::DeviceTaintRule rule);
  void DeleteDeviceTaintRule(const std::string& name);
  void UpsertResourceSlice(api::ResourceSlice slice);
  void DeleteResourceSlice(const std::string& name);
  void UpsertDeviceClass(api::DeviceClass cls);
  void DeleteDeviceClass(const std::string& name);
  void UpsertResourceClaim(api::ResourceClaim claim);
  void DeleteResourceClaim(const std::string& key);
  // A bind carrying claim writes was sent: the claims count as allocated
  // and reserved until the source shows them so. Forgotten when it fails.
  void AssumeClaims(const std::vector<api::ClaimWrite>& writes);
  void ForgetClaims(const std::vector<api::ClaimWrite>& writes);
  // The claim `key` was deallocated: whatever was assumed of it is
  // dropped, and it is as the source shows it.
  void ForgetAssumedClaim(const std::string& key);
  // A bind was sent: treat the pod as on `node` until the source says so.
  void AssumeBound(const std::string& pod_key, const std::string& node);
  // A bind failed: the pod is pending again.
  void ForgetAssumed(const std::string& pod_key);
  int AssumedCount() const;

  const std::string& scheduler_name() const { return scheduler_name_; }
  // A copy of the pod as the cache holds it, or nullptr.
  std::shared_ptr<const api::PodInfo> FindPod(const std::string& key) const;

  api::ClusterInfo Snapshot() const;
  // The same cluster built from every object, deriving every pod anew,
  // without touching what the incremental snapshots keep: what they must
  // equal (the tests), and what they save (the benchmarks).
  api::ClusterInfo SnapshotFromScratch() const;
  // How many snapshots patched the model with a job of one added or
  // deleted rather than assembling it again (for the tests).
  int64_t SinglePodPatches() const;
  // A consistent copy of everything held (see CacheContents).
  CacheContents Export() const;

  // The newest creationTimestamp of any pod or PodGroup (the epoch when
  // there is none): when a cluster dump was taken, near enough.
  absl::Time LatestCreation() const;

 private:
  struct PodEntry {
    std::shared_ptr<const api::PodInfo> pod;
    bool has_priority = false;
    // The pod as the snapshot shows it (priority, assumed node, claims:
    // see Derive), as derived at `derived_epoch`; when that is not
    // derive_epoch_ the pod (or its assumed bind) changed since, and this
    // is still the view the model holds.
    mutable std::shared_ptr<const api::PodInfo> derived;
    mutable uint64_t derived_epoch = 0;
  };
  // The pod as the snapshot shows it: `entry.pod` itself, or a copy with
  // what the cache knows about it applied.
  std::shared_ptr<const api::PodInfo> Derive(const std::string& key,
                                             const PodEntry& entry) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Logs that the pod `key` (in pods_ or not yet) changed: its view in
  // the model is stale. Call before changing pods_.
  void PodChanged(const std::string& key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A PodGroup's job as the snapshot shows it: priority from its class,
  // what was kept of the cycles' decisions applied.
  api::JobInfo GroupJob(const std::string& key, const api::JobInfo& group) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // What was kept of the cycles' decisions about job `key` (its phase,
  // elastic target, cycles left partly bound), applied to `job` when it is
  // the same object (uid).
  void ApplyKept(const std::string& key, api::JobInfo& job) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The whole cluster from every object. `fresh`: derive every pod anew
  // and keep nothing; otherwise reuse and refresh the entries' views and
  // record where each pod and group went (for the model).
  api::ClusterInfo Assemble(
      bool fresh, absl::flat_hash_map<std::string, api::JobIndex>* job_of_group,
      std::set<std::string>* theirs) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Brings the model up to date with what changed since it was built:
  // patched when nothing moved, assembled again otherwise.
  // What it lets go of (a replaced model, the views pods had in it) goes
  // to `garbage`, for the caller to free after the lock.
  struct Garbage {
    absl::flat_hash_map<std::string, std::shared_ptr<const api::PodInfo>> views;
    std::shared_ptr<api::ClusterInfo> model;
  };
  void UpdateModel(Garbage& garbage) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Patches the model with the changes logged; false (the model left
  // unusable) when one of them moves indices after all.
  bool PatchModel() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Something changed that moves nodes or jobs: the next snapshot
  // assembles, and what changed need not be logged until then.
  void Restructure() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    restructure_ = true;
    changed_pods_.clear();
    changed_nodes_.clear();
    changed_groups_.clear();
  }
  // Every pod's derived view is stale: priority classes, claims, volumes
  // and storage classes are few and rarely change, so a change to any of
  // them simply derives every pod again rather than track which pods
  // read it.
  void InvalidateDerived() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    ++derive_epoch_;
    Restructure();
  }
  // The named class, or the global default when the name is empty or
  // unknown (as the API server's priority admission), or null.
  const api::PriorityClass* ClassOf(const std::string& class_name) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  int32_t PriorityOf(const std::string& class_name) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A pending pod's claims, as kube-scheduler's VolumeBinding and
  // VolumeZone see them: sets `pod.volume_refusal` when one keeps it from
  // being placed at all (missing, being deleted, not bound: Shoal binds
  // no volumes), else adds the bound volumes' node affinity and zones to
  // a copy of its placement constraints.
  void ResolveClaims(api::PodInfo& pod) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The distinct CSI volumes a pod on a node attaches, as kube-scheduler's
  // NodeVolumeLimits counts an existing pod's: claims that exist (an
  // ephemeral one owned by the pod) and name a PersistentVolume with
  // spec.csi; anything else is not counted.
  std::vector<api::CsiVolume> AttachedCsiVolumes(const api::PodInfo& pod) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string scheduler_name_;
  const std::function<absl::Time()> clock_;
  mutable absl::Mutex mu_;
  // Ordered maps: snapshots, and so decisions, do not depend on arrival
  // order.
  std::map<std::string, std::shared_ptr<const api::NodeSpec>> nodes_
      ABSL_GUARDED_BY(mu_);
  std::map<std::string, PodEntry> pods_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, api::JobInfo> groups_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, api::QueueInfo> queues_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, api::PriorityClass> priority_classes_
      ABSL_GUARDED_BY(mu_);
  std::map<std::string, api::Labels> namespaces_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, api::PersistentVolumeClaim> claims_
      ABSL_GUARDED_BY(mu_);
  std::map<std::string, api::PersistentVolume> volumes_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, api::StorageClass> storage_classes_
      ABSL_GUARDED_BY(mu_);
  // Nodes' CSI attach limits, shared by the snapshots; a CSINode without
  // any limit is not kept.
  std::map<std::string, std::shared_ptr<const std::vector<api::VolumeLimit>>>
      csi_nodes_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, api::HyperNodeSpec> hypernodes_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, api::WorkloadSpec> workloads_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, api::CompositePodGroupSpec> composites_
      ABSL_GUARDED_BY(mu_);
  std::string kube_pod_group_version_ ABSL_GUARDED_BY(mu_) =
      "scheduling.k8s.io/v1beta1";
  DeviceObjects devices_ ABSL_GUARDED_BY(mu_);
  // The tree the HyperNodes make over the nodes, kept between assemblies
  // (matching patterns against every node is not free) and rebuilt only
  // when a HyperNode, the set of nodes or a node's labels change.
  mutable std::shared_ptr<const api::NetworkTopology> network_
      ABSL_GUARDED_BY(mu_);
  mutable bool network_stale_ ABSL_GUARDED_BY(mu_) = true;
  // The tree for `cluster`'s nodes: the kept one unless it is stale (or
  // `fresh`, which builds its own and keeps nothing).
  std::shared_ptr<const api::NetworkTopology> NetworkFor(
      const api::ClusterInfo& cluster, bool fresh) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::map<std::string, std::string> assumed_
      ABSL_GUARDED_BY(mu_);  // pod -> node
  struct Decision {
    std::string uid;  // of the PodGroup it was made for
    // The phase decided, when the source does not show it yet; the phase
    // the source showed then; and every phase decided since, whose
    // status writes may still come back through the source.
    bool has_phase = false;
    api::PodGroupPhase phase = api::PodGroupPhase::kPending;
    api::PodGroupPhase source_phase = api::PodGroupPhase::kPending;
    std::set<api::PodGroupPhase> ours;
    int32_t elastic_target = 0;
    // Consecutive cycles that ended with the gang partly bound.
    int32_t cycles_below_minimum = 0;
  };
  // Drops what the source's view of `group` reflects or supersedes.
  void Reconcile(const api::JobInfo& group) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::map<std::string, Decision> decisions_
      ABSL_GUARDED_BY(mu_);  // by PodGroup key

  // What changed since the model was built (see above).
  uint64_t derive_epoch_ ABSL_GUARDED_BY(mu_) = 1;
  mutable bool restructure_ ABSL_GUARDED_BY(mu_) = true;
  // By key, the view the model holds of each pod changed since (null
  // for a pod it does not hold).
  mutable absl::flat_hash_map<std::string, std::shared_ptr<const api::PodInfo>>
      changed_pods_ ABSL_GUARDED_BY(mu_);
  mutable std::set<std::string> changed_nodes_ ABSL_GUARDED_BY(mu_);
  mutable std::set<std::string> changed_groups_ ABSL_GUARDED_BY(mu_);
  // The last cluster built, and the job of each PodGroup in it. Changed
  // only under the lock and only while no snapshot is copying it (else
  // it is copied first): snapshots copy it outside the lock.
  mutable std::shared_ptr<api::ClusterInfo> model_ ABSL_GUARDED_BY(mu_);
  mutable absl::flat_hash_map<std::string, api::JobIndex> model_jobs_
      ABSL_GUARDED_BY(mu_);
  // api::ResourceNameCount() when the model was assembled.
  mutable int model_names_ ABSL_GUARDED_BY(mu_) = 0;
  // PodGroups that some other scheduler's pod names, in the model.
  mutable std::set<std::string> model_theirs_ ABSL_GUARDED_BY(mu_);
  mutable int64_t single_pod_patches_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace shoal::cache

#endif  // SHOAL_SCHEDULER_CACHE_CACHE_H_
