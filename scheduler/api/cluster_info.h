// One immutable-by-convention picture of the cluster for a session: nodes,
// Shoal's jobs and tasks, queues and priority classes, cross-linked by
// index. Copying it is cheap: pod and node facts are shared.
#ifndef SHOAL_SCHEDULER_API_CLUSTER_INFO_H_
#define SHOAL_SCHEDULER_API_CLUSTER_INFO_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "scheduler/api/devices.h"
#include "scheduler/api/job_info.h"
#include "scheduler/api/network_topology.h"
#include "scheduler/api/node_info.h"
#include "scheduler/api/queue_info.h"
#include "scheduler/api/task_info.h"

namespace shoal::api {

// A pod of another scheduler on a node: it takes room there and counts
// for other pods' affinity, anti-affinity and spread.
struct ForeignPod {
  std::shared_ptr<const PodInfo> pod;
  NodeIndex node = kNone;
};

struct ClusterInfo {
  std::vector<NodeInfo> nodes;
  std::vector<ForeignPod> foreign_pods;
  // Labels of each Namespace, for affinity terms' namespaceSelector.
  absl::flat_hash_map<std::string, Labels> namespace_labels;
  std::vector<JobInfo> jobs;
  std::vector<TaskInfo> tasks;
  std::vector<QueueInfo> queues;
  absl::flat_hash_map<std::string, NodeIndex> node_by_name;
  // When the snapshot was taken (the simulated clock in the simulator).
  absl::Time now = absl::UnixEpoch();
  // Sum of allocatable over Ready nodes: what shares are shares of. When
  // a session opens it gains the devices of each class claims name
  // (dra/device_quota.h), under the names in `device_resources`.
  Resource total_allocatable;
  std::vector<ResourceId> device_resources;
  absl::flat_hash_map<std::string, int32_t> queue_by_name;
  // The network's domains, built from HyperNodes when the nodes or the
  // HyperNodes change (null when there are none); a policy naming label
  // tiers builds its own when the session opens.
  std::shared_ptr<const NetworkTopology> network;
  // ResourceSlices, DeviceClasses and ResourceClaims (DRA); null when
  // the source has none.
  std::shared_ptr<const DeviceWorld> devices;

  // Index of the queue, or kNone when it does not exist.
  int32_t FindQueue(const std::string& name) const {
    auto it = queue_by_name.find(name);
    return it == queue_by_name.end() ? kNone : it->second;
  }
  // The job's minResources, or else what its first minMember tasks (in
  // creation order) request: what admitting the gang commits.
  Resource GangMinimum(const JobInfo& job) const;
  // What the job's tasks hold now (those that count toward its share).
  Resource Held(const JobInfo& job) const;
  // The part of its gang minimum the job does not hold yet: what
  // admitting (or having admitted) it still promises.
  Resource UnheldMinimum(const JobInfo& job) const;

  NodeIndex FindNode(const std::string& name) const {
    auto it = node_by_name.find(name);
    return it == node_by_name.end() ? kNone : it->second;
  }
};

// Every job, queue and node carries its own position in `c` (what
// ClusterBuilder sets): the invariant code relies on when it goes from an
// object back to its index.
bool IndexesMatchPositions(const ClusterInfo& c);

}  // namespace shoal::api

#endif  // SHOAL_SCHEDULER_API_CLUSTER_INFO_H_
