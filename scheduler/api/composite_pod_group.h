// Kubernetes' CompositePodGroup (KEP-6012, scheduling.k8s.io/v1alpha3,
// Kubernetes 1.37): a non-leaf node of a tree of groups made by a workload
// controller (JobSet, LeaderWorkerSet) from a Workload's templates. Its
// children are CompositePodGroups and PodGroups naming it by
// spec.parentCompositePodGroupName; pods join the leaf PodGroups. The
// cache turns each tree into one job whose policies are its composites
// (api/sub_groups.h, cache/composite_jobs.h).
#ifndef SHOAL_SCHEDULER_API_COMPOSITE_POD_GROUP_H_
#define SHOAL_SCHEDULER_API_COMPOSITE_POD_GROUP_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "scheduler/api/network_topology.h"

namespace shoal::api {

struct CompositePodGroupSpec {
  std::string ns;
  std::string name;
  std::string uid;
  std::string api_version;  // as read, written back by snapshots
  absl::Time created = absl::UnixEpoch();
  // The scheduling.volcano.sh/queue-name annotation (or label), else
  // "default"; the root's decides the tree's queue.
  std::string queue = "default";
  std::string parent;  // spec.parentCompositePodGroupName; "" for a root
  // spec.schedulingPolicy: gang.minGroupCount, or basic (counted as 1).
  bool gang = false;
  int32_t min_group_count = 1;
  // spec.schedulingConstraints.topology[0].key: every pod below it inside
  // one domain of that node label (hard).
  NetworkConstraint network;
  std::string priority_class;       // spec.priorityClassName
  std::optional<int32_t> priority;  // spec.priority, set by admission
  std::string preemption_policy;    // spec.preemptionPolicy, "" if unset
  bool disrupted_whole = false;     // spec.disruptionMode: {all: {}}
  std::string Key() const { return ns + "/" + name; }
};

}  // namespace shoal::api

#endif  // SHOAL_SCHEDULER_API_COMPOSITE_POD_GROUP_H_
