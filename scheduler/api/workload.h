// Kubernetes' own gang API (KEP-4671, scheduling.k8s.io Workload): a
// Workload names pod groups, each a gang of at least minCount pods or
// "basic" (each pod on its own); a pod joins one by spec.workloadRef.
// The cache turns each (Workload, podGroup, podGroupReplicaKey) with a
// gang policy into one job, like a PodGroup's (cache/workload_jobs.h).
#ifndef SHOAL_SCHEDULER_API_WORKLOAD_H_
#define SHOAL_SCHEDULER_API_WORKLOAD_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"

namespace shoal::api {

// One entry of spec.podGroups.
struct WorkloadPodGroup {
  std::string name;
  bool gang = false;      // policy.gang; otherwise policy.basic
  int32_t min_count = 1;  // policy.gang.minCount
  bool operator==(const WorkloadPodGroup& o) const {
    return name == o.name && gang == o.gang && min_count == o.min_count;
  }
};

struct WorkloadSpec {
  std::string ns;
  std::string name;
  std::string uid;
  std::string api_version;  // as read, written back by snapshots
  absl::Time created = absl::UnixEpoch();
  // The Queue its gangs go to: the Workload's scheduling.volcano.sh/
  // queue-name annotation (or label), else "default".
  std::string queue = "default";
  // Shoal's shoal.dev/resize-cost-seconds annotation on the Workload, for
  // each of its gangs (JobInfo::resize_cost_seconds); -1 when absent.
  int32_t resize_cost_seconds = -1;
  // Shoal's shoal.dev/throughput annotation on the Workload, for each of
  // its gangs (JobInfo::throughput); empty when absent.
  std::vector<std::pair<int32_t, double>> throughput;
  // shoal.dev/progress on the Workload (JobInfo::progress); -1 when absent.
  double progress = -1;
  std::vector<WorkloadPodGroup> pod_groups;
  std::string Key() const { return ns + "/" + name; }
  const WorkloadPodGroup* Find(const std::string& pod_group) const {
    for (const WorkloadPodGroup& g : pod_groups) {
      if (g.name == pod_group) return &g;
    }
    return nullptr;
  }
};

// A pod's spec.workloadRef; empty name when it has none.
struct WorkloadRef {
  std::string name;
  std::string pod_group;
  std::string replica_key;  // podGroupReplicaKey: a gang of its own
  bool operator==(const WorkloadRef& o) const {
    return name == o.name && pod_group == o.pod_group &&
           replica_key == o.replica_key;
  }
  // "train/workers" or "train/workers/0": the name the gang goes by (a
  // "/" keeps it apart from every PodGroup name).
  std::string GangName() const {
    std::string out = name + "/" + pod_group;
    if (!replica_key.empty()) out += "/" + replica_key;
    return out;
  }
};

}  // namespace shoal::api

#endif  // SHOAL_SCHEDULER_API_WORKLOAD_H_
