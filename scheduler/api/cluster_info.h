// One immutable-by-convention picture of the cluster for a session: nodes,
// Shoal's jobs and tasks, queues and priority classes, cross-linked by
// index. Copying it is cheap: pod and node facts are shared.
#ifndef SHOAL_SCHEDULER_API_CLUSTER_INFO_H_
#define SHOAL_SCHEDULER_API_CLUSTER_INFO_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "scheduler/api/job_info.h"
#include "scheduler/api/node_info.h"
#include "scheduler/api/queue_info.h"
#include "scheduler/api/task_info.h"

namespace shoal::api {

struct ClusterInfo {
  std::vector<NodeInfo> nodes;
  std::vector<JobInfo> jobs;
  std::vector<TaskInfo> tasks;
  std::vector<QueueInfo> queues;
  absl::flat_hash_map<std::string, NodeIndex> node_by_name;
  absl::flat_hash_map<std::string, int32_t> queue_by_name;

  // Index of the queue, or kNone when it does not exist.
  int32_t FindQueue(const std::string& name) const {
    auto it = queue_by_name.find(name);
    return it == queue_by_name.end() ? kNone : it->second;
  }
  NodeIndex FindNode(const std::string& name) const {
    auto it = node_by_name.find(name);
    return it == node_by_name.end() ? kNone : it->second;
  }
};

}  // namespace shoal::api

#endif  // SHOAL_SCHEDULER_API_CLUSTER_INFO_H_
