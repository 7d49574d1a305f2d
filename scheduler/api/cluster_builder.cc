#include "scheduler/api/cluster_builder.h"

#include <algorithm>

#include "scheduler/api/queue_tree.h"

namespace shoal::api {

void ClusterBuilder::SetNow(absl::Time now) { cluster_.now = now; }

void ClusterBuilder::Reserve(size_t nodes, size_t jobs, size_t tasks) {
  cluster_.nodes.reserve(nodes);
  cluster_.node_by_name.reserve(nodes);
  cluster_.jobs.reserve(jobs);
  cluster_.tasks.reserve(tasks);
}

NodeIndex ClusterBuilder::AddNode(std::shared_ptr<const NodeSpec> spec) {
  NodeIndex i = static_cast<NodeIndex>(cluster_.nodes.size());
  cluster_.node_by_name[spec->name] = i;
  cluster_.nodes.emplace_back(std::move(spec), i);
  return i;
}

void ClusterBuilder::AddQueue(QueueInfo queue) {
  auto it = cluster_.queue_by_name.find(queue.name);
  if (it != cluster_.queue_by_name.end()) {
    queue.index = it->second;
    cluster_.queues[it->second] = std::move(queue);
    return;
  }
  queue.index = static_cast<int32_t>(cluster_.queues.size());
  cluster_.queue_by_name[queue.name] = queue.index;
  cluster_.queues.push_back(std::move(queue));
}

JobIndex ClusterBuilder::AddJob(JobInfo job) {
  job.tasks.clear();
  job.count_by_status = {};
  job.index = static_cast<JobIndex>(cluster_.jobs.size());
  cluster_.jobs.push_back(std::move(job));
  return cluster_.jobs.back().index;
}

TaskIndex ClusterBuilder::AddTask(std::shared_ptr<const PodInfo> pod,
                                  JobIndex job) {
  TaskIndex i = static_cast<TaskIndex>(cluster_.tasks.size());
  TaskInfo task;
  task.status = pod->status;
  task.job = job;
  if (!pod->node_name.empty()) task.node = cluster_.FindNode(pod->node_name);
  task.pod = std::move(pod);
  if (task.node != kNone) {
    NodeInfo& node = cluster_.nodes[task.node];
    node.Add(task.request(), task.status, task.pod->host_ports,
             task.pod->csi_volumes);
    node.tasks().push_back(i);
  }
  JobInfo& j = cluster_.jobs[job];
  j.tasks.push_back(i);
  ++j.count_by_status[static_cast<int>(task.status)];
  cluster_.tasks.push_back(std::move(task));
  return i;
}

void ClusterBuilder::AddForeignPod(const std::string& node,
                                   const Resource& request,
                                   const std::vector<HostPort>& host_ports) {
  NodeIndex n = cluster_.FindNode(node);
  if (n != kNone)
    cluster_.nodes[n].Add(request, TaskStatus::kRunning, host_ports);
}

void ClusterBuilder::AddForeignPod(std::shared_ptr<const PodInfo> pod) {
  NodeIndex n = cluster_.FindNode(pod->node_name);
  if (n == kNone) return;
  cluster_.nodes[n].Add(pod->request, TaskStatus::kRunning, pod->host_ports,
                        pod->csi_volumes);
  cluster_.foreign_pods.push_back({std::move(pod), n});
}

void ClusterBuilder::SetVolumeLimits(
    const std::string& node,
    std::shared_ptr<const std::vector<VolumeLimit>> limits) {
  NodeIndex n = cluster_.FindNode(node);
  if (n != kNone) cluster_.nodes[n].SetVolumeLimits(std::move(limits));
}

void ClusterBuilder::SetNamespaceLabels(const std::string& ns, Labels labels) {
  cluster_.namespace_labels[ns] = std::move(labels);
}

ClusterInfo ClusterBuilder::Build() && {
  for (const NodeInfo& n : cluster_.nodes) {
    if (n.spec().ready) cluster_.total_allocatable += n.allocatable();
  }
  if (cluster_.FindQueue("default") == kNone) {
    QueueInfo q;
    q.name = "default";
    q.implicit = true;
    AddQueue(std::move(q));
  }
  const bool named_parent =
      std::any_of(cluster_.queues.begin(), cluster_.queues.end(),
                  [](const QueueInfo& q) { return !q.parent.empty(); });
  if (named_parent && cluster_.FindQueue(kRootQueue) == kNone) {
    QueueInfo root;
    root.name = kRootQueue;
    root.implicit = true;
    AddQueue(std::move(root));
  }
  LinkQueueTree(cluster_);
  for (JobInfo& job : cluster_.jobs) {
    job.queue_index = cluster_.FindQueue(job.queue);
    if (!job.sub_group_policies.empty())
      PartitionSubGroups(cluster_, job.index);
  }
  return std::move(cluster_);
}

}  // namespace shoal::api
