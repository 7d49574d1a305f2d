// A pod that Shoal schedules (schedulerName matches), as a task of a job.
#ifndef SHOAL_SCHEDULER_API_TASK_INFO_H_
#define SHOAL_SCHEDULER_API_TASK_INFO_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "scheduler/api/devices.h"
#include "scheduler/api/placement.h"
#include "scheduler/api/pod_affinity.h"
#include "scheduler/api/resource.h"
#include "scheduler/api/volume.h"
#include "scheduler/api/workload.h"

namespace shoal::api {

enum class TaskStatus {
  kPending,    // waiting for a node
  kAllocated,  // placed in this session, bind not yet sent
  kPipelined,  // will take a node's resources once victims leave
  kBinding,    // bind sent, not yet seen by the watch (assumed)
  kBound,      // spec.nodeName set
  kRunning,
  kReleasing,  // being evicted or deleted; still holds its resources
  kSucceeded,
  kFailed,
};
inline constexpr int kTaskStatusCount = 9;
const char* TaskStatusName(TaskStatus s);

// Holds node resources (counted in NodeInfo.used).
bool OccupiesNode(TaskStatus s);
// Counts toward its job's and queue's share of the cluster: placed,
// pipelined, binding, bound or running (what the allocate/deallocate
// events track).
bool HoldsShare(TaskStatus s);
// Counts toward a gang's minimum: placed or done.
bool IsReadyStatus(TaskStatus s);

// A port one of a pod's containers binds on its node (hostPort), as
// kube-scheduler's NodePorts filter sees it.
struct HostPort {
  std::string ip;                // "" or "0.0.0.0": every address
  std::string protocol = "TCP";  // TCP, UDP or SCTP
  int32_t port = 0;
  bool operator==(const HostPort& o) const {
    return ip == o.ip && protocol == o.protocol && port == o.port;
  }
  // Both cannot be bound on one node: same port and protocol, and the same
  // address or either one on every address.
  bool ConflictsWith(const HostPort& o) const;
};

// The immutable facts of one pod, shared between snapshots.
struct PodInfo {
  std::string ns;
  std::string name;
  std::string uid;
  std::string scheduler_name;
  std::string node_name;  // spec.nodeName; empty while pending
  // PodGroup name in ns, or the name of the Workload gang it joins
  // (WorkloadRef::GangName); empty for a job of one.
  std::string group;
  WorkloadRef workload_ref;  // spec.workloadRef; empty name when none
  // `group` came from spec.schedulingGroup (a scheduling.k8s.io PodGroup).
  bool in_scheduling_group = false;
  // It names two gangs (a PodGroup and a Workload): why it waits, pod
  // named; its PodGroup's gang waits with it, never counting it twice.
  std::string group_conflict;
  std::string role;  // task name inside the job (volcano.sh/task-spec)
  std::string priority_class;
  int32_t priority = 0;
  // preemptionPolicy: Never, from the pod or, when the pod does not say,
  // its PriorityClass (settled by the cache at snapshot time).
  bool preempt_never = false;
  bool preemption_policy_set = false;  // spec.preemptionPolicy was given
  bool preemptable = true;             // volcano.sh/preemptable (default true)
  bool critical = false;  // system-cluster/node-critical priority class
  TaskStatus status = TaskStatus::kPending;
  absl::Time created = absl::UnixEpoch();
  // Host ports of its containers, init and sidecar containers included
  // (with spec.hostNetwork, every container port).
  std::vector<HostPort> host_ports;
  // spec.schedulingGates: while any is left the pod is never placed.
  std::vector<std::string> scheduling_gates;
  // The first field of the pod that bears on placement and that Shoal
  // does not implement yet ("spec.workloadRef"): the pod waits, naming
  // it, rather than be placed as if it were absent. Its value (JSON) is
  // kept so that a snapshot of the cache writes the field back.
  std::string unsupported_field;
  std::string unsupported_value;
  // The claims its volumes use (persistentVolumeClaim, ephemeral).
  std::vector<VolumeClaimRef> volume_claims;
  // Set by the cache at snapshot time for a pending pod: why its claims
  // keep it from being placed (a claim missing, not bound yet, bound to a
  // volume that does not exist), the whole sentence, or "". A bound
  // claim's volume node affinity goes into `placement` instead.
  std::string volume_refusal;
  // The same in kube-scheduler's words alone, as its VolumeBinding plugin
  // reports it for every node (`persistentvolumeclaim "data" not found`).
  std::string volume_reason;
  // The distinct CSI volumes it attaches to its node (its claims' bound
  // PersistentVolumes with spec.csi), set by the cache at snapshot time
  // for pending pods of Shoal and for pods of any scheduler on a node;
  // counted against the node's CSINode limits (NodeVolumeLimits).
  std::vector<CsiVolume> csi_volumes;
  // spec.resourceClaims (DRA), each resolved to its claim's name; and,
  // set at session open, the claim serving its extended resources through
  // devices (PodClaim::extended, last).
  std::vector<PodClaim> resource_claims;
  // Each container's request of an extended resource ("example.com/gpu",
  // whole units), in spec order, init containers first: what a claim
  // serving them through devices asks for, container by container
  // (dra/extended_resources.h).
  struct ExtendedRequest {
    std::string container;
    int32_t index = 0;  // among initContainers then containers
    // Its name's position among the container's sorted request names.
    int32_t name_index = 0;
    bool short_lived = false;  // an init container that is no sidecar
    std::string resource;
    int64_t count = 0;
  };
  std::vector<ExtendedRequest> extended_requests;
  // status.extendedResourceClaimStatus: the claim a scheduler made for
  // them, and which request serves which container's resource.
  std::string extended_claim;
  std::vector<ContainerRequestMapping> extended_mappings;
  // What kube-scheduler counts: max(sum of containers + sidecars, each init
  // container) plus overhead, plus one "pods".
  Resource request;
  std::shared_ptr<const PlacementConstraints> placement;
  Labels labels;
  // Affinity to other pods and spread constraints; null when it has none.
  std::shared_ptr<const InterPodRules> inter_pod;

  std::string Key() const { return ns + "/" + name; }
};

using NodeIndex = int32_t;
using JobIndex = int32_t;
using TaskIndex = int32_t;
inline constexpr int32_t kNone = -1;

struct TaskInfo {
  std::shared_ptr<const PodInfo> pod;
  TaskStatus status = TaskStatus::kPending;
  NodeIndex node = kNone;
  JobIndex job = kNone;

  // Tasks with equal classes are alike to the inter-pod rules: same
  // namespace, rules and labels that any selector in the cluster reads
  // (set by the session; 0 while no pod in the cluster has such rules).
  int32_t topology_class = 0;
  // Tasks with equal classes ask for devices alike (DRA): 0 for none;
  // claims with the same requests, not allocated and not shared, share a
  // class; a task whose claims are allocated or shared has one of its own
  // (set by the session).
  int32_t claims_class = 0;
  // Its sub-group in its job (JobInfo::sub_groups), or kNone.
  int32_t sub_group = kNone;

  // What it counts against its queue and in fair shares: its request
  // plus the devices its claims take, by class (dra/device_quota.h);
  // null when they count nothing (no claims, or no queue states a quota
  // in their devices): then its request alone.
  std::shared_ptr<const Resource> with_devices;

  const Resource& request() const { return pod->request; }
  const Resource& counted() const {
    return with_devices != nullptr ? *with_devices : pod->request;
  }
  const PlacementConstraints& placement() const { return *pod->placement; }
  // Asks for nothing but a pod slot (BestEffort QoS), and its claims take
  // no devices a queue counts.
  bool best_effort() const;
  // Same request, host ports, placement constraints and topology class:
  // any node that takes one takes the other, so per-node answers can be
  // shared.
  bool PlacedAlike(const TaskInfo& other) const;
};

}  // namespace shoal::api

#endif  // SHOAL_SCHEDULER_API_TASK_INFO_H_
