// Assembles a consistent ClusterInfo: indices cross-linked, node
// accounting and job counts derived from the tasks. The cache's snapshot,
// the simulator and tests all build clusters through it.
#ifndef SHOAL_SCHEDULER_API_CLUSTER_BUILDER_H_
#define SHOAL_SCHEDULER_API_CLUSTER_BUILDER_H_

#include <memory>
#include <string>
#include <vector>

#include "scheduler/api/cluster_info.h"

namespace shoal::api {

class ClusterBuilder {
 public:
  void SetNow(absl::Time now);
  // Room for what is coming, so the vectors are allocated once.
  void Reserve(size_t nodes, size_t jobs, size_t tasks);
  NodeIndex AddNode(std::shared_ptr<const NodeSpec> spec);
  // Adds or replaces a queue by name.
  void AddQueue(QueueInfo queue);
  JobIndex AddJob(JobInfo job);
  // A pod of one of Shoal's jobs. Its status and node come from the pod;
  // a node name that is not in the cluster leaves the task off any node.
  TaskIndex AddTask(std::shared_ptr<const PodInfo> pod, JobIndex job);
  // A pod of another scheduler (or a bound pod Shoal does not manage): it
  // only takes room on its node.
  void AddForeignPod(const std::string& node, const Resource& request,
                     const std::vector<HostPort>& host_ports = {});
  // The same for a pod known in full: its labels and inter-pod rules count
  // for the pods Shoal places near it.
  void AddForeignPod(std::shared_ptr<const PodInfo> pod);
  void SetNamespaceLabels(const std::string& ns, Labels labels);
  // A node's CSI attach limits (from its CSINode); call after AddNode.
  void SetVolumeLimits(const std::string& node,
                       std::shared_ptr<const std::vector<VolumeLimit>> limits);

  // Adds the implicit `default` queue when no Queue object named it.
  ClusterInfo Build() &&;

 private:
  ClusterInfo cluster_;
};

}  // namespace shoal::api

#endif  // SHOAL_SCHEDULER_API_CLUSTER_BUILDER_H_
