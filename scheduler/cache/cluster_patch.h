// Edits to a ClusterInfo that ClusterBuilder built, for changes that
// leave the nodes where they were: a pod updated in place (same key, same
// scheduler, same group), added or deleted (tasks renumbered), a job of
// one (a pod of no PodGroup) added or deleted (jobs renumbered), a node's
// spec, a PodGroup's fields. After
// Finish() the cluster is exactly what the builder would build from the
// changed inputs, down to the order of each node's host ports and
// volumes and its generation, so the cache can keep one cluster between
// cycles and redo only what changed (the way kube-scheduler's
// UpdateSnapshot copies only nodes whose generation moved).
#ifndef SHOAL_SCHEDULER_CACHE_CLUSTER_PATCH_H_
#define SHOAL_SCHEDULER_CACHE_CLUSTER_PATCH_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "scheduler/api/cluster_info.h"

namespace shoal::cache {

// The job of one pod that has no PodGroup, as the snapshot builds it.
api::JobInfo SinglePodJob(const api::PodInfo& pod);

// <0, 0, >0 as the pod's Key() ("namespace/name") sorts before, equal to,
// after `key`, without building it.
int CompareKey(const api::PodInfo& pod, absl::string_view key);

class ClusterPatch {
 public:
  explicit ClusterPatch(api::ClusterInfo& cluster);

  // Jobs of one come and go, as the builder orders them: every PodGroup's
  // job first, then the jobs of one and the jobs of missing PodGroups in
  // the order of their first pod's key. The jobs of the pods with keys
  // `deleted` (in key order, each one's pod a job of one) leave, a job
  // of one for each pod of `added` (in key order, none there yet) joins,
  // and every job index the cluster holds is renumbered; the tasks stay
  // (a deleted job's with no job, for ChangeTasks to drop). Returns the
  // index of each added pod's job, for ChangeTasks. Call first.
  std::vector<api::JobIndex> ChangeSingleJobs(
      const std::vector<std::string>& deleted,
      const std::vector<std::shared_ptr<const api::PodInfo>>& added);
  // After ChangeSingleJobs: the new index of each job the cluster had
  // before (kNone for a deleted one); empty when no job moved.
  const std::vector<api::JobIndex>& job_renumbering() const {
    return job_renumbering_;
  }

  // Tasks come and go: the pods with keys `deleted` leave, the pods
  // `added` (in key order, none there yet) join their jobs, and every
  // task is renumbered to stay in key order. Call before ReplaceTask.
  void ChangeTasks(
      const std::vector<std::string>& deleted,
      const std::vector<std::pair<std::shared_ptr<const api::PodInfo>,
                                  api::JobIndex>>& added);
  // The task of the pod `key` now reads `pod` (the same pod, in the same
  // job).
  void ReplaceTask(absl::string_view key,
                   std::shared_ptr<const api::PodInfo> pod);
  // Another scheduler's pod changed from `old` to `pod` (same key; either
  // null when the pod is new or gone): it joins, leaves or stays in
  // foreign_pods by whether it holds room on a node of the cluster.
  void ReplaceForeignPod(const api::PodInfo* old,
                         std::shared_ptr<const api::PodInfo> pod);
  // Node `n` has a new spec (same name), which Finish() reads.
  void NodeSpecChanged(api::NodeIndex n);
  // A PodGroup's job with its fields as the snapshot derives them from
  // the group (priority from its class, kept decisions applied); its
  // tasks and counts stay.
  void ReplaceGroupJob(api::JobIndex j, api::JobInfo job);

  // Recounts what the edits touched: the accounting of each node they
  // touched (from scratch, in the builder's order), the priorities of
  // jobs that rank as their highest pod, total_allocatable. `specs` and
  // `csi_limits` are the nodes' specs and CSI attach limits by name, as
  // the cache holds them.
  using NodeSpecs = std::map<std::string, std::shared_ptr<const api::NodeSpec>>;
  using CsiLimits =
      std::map<std::string,
               std::shared_ptr<const std::vector<api::VolumeLimit>>>;
  void Finish(const NodeSpecs& specs, const CsiLimits& csi_limits) &&;

 private:
  // The index of the task whose pod has `key`; the first with a later
  // key when there is none.
  api::TaskIndex LowerBound(absl::string_view key) const;
  void TouchNode(api::NodeIndex n);
  void TouchJob(api::JobIndex j);

  api::ClusterInfo& cluster_;
  std::vector<bool> node_touched_;
  std::vector<api::NodeIndex> nodes_;
  std::vector<bool> job_touched_;
  std::vector<api::JobIndex> jobs_;
  std::vector<api::JobIndex> job_renumbering_;
  bool specs_changed_ = false;
};

}  // namespace shoal::cache

#endif  // SHOAL_SCHEDULER_CACHE_CLUSTER_PATCH_H_
