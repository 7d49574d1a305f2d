// The jobs of Kubernetes' CompositePodGroup trees (KEP-6012): a tree of
// CompositePodGroups over leaf PodGroups (each naming its parent by
// spec.parentCompositePodGroupName) is one job, the root's, whose
// sub-group policies are its composites and whose sub-groups are its
// leaves (api/sub_groups.h): the root runs only when minGroupCount of its
// children can, each child by its own policy, level by level.
//
// The API's rules for a tree are checked here, and a tree breaking one
// waits naming it: one priority and one preemption policy across its
// groups and pods, one scheduler for its pods, at most four levels, no
// cycle. A leaf whose parent (or an ancestor) does not exist yet waits as
// kube-scheduler holds it, saying which.
#ifndef SHOAL_SCHEDULER_CACHE_COMPOSITE_JOBS_H_
#define SHOAL_SCHEDULER_CACHE_COMPOSITE_JOBS_H_

#include <functional>
#include <map>
#include <set>
#include <string>

#include "scheduler/api/cluster_info.h"
#include "scheduler/api/composite_pod_group.h"
#include "scheduler/api/job_info.h"

namespace shoal::cache {

using Composites = std::map<std::string, api::CompositePodGroupSpec>;

struct CompositeTrees {
  // Each tree's job, by its root's key ("ns/name").
  std::map<std::string, api::JobInfo> jobs;
  // Each leaf PodGroup of a whole tree, by key: its root's key.
  std::map<std::string, std::string> root_of_leaf;
  // Each leaf PodGroup whose tree is not whole (a missing ancestor, a
  // cycle, too deep): why its pods wait.
  std::map<std::string, std::string> broken_leaf;
};

// The deepest a tree may be, the root counted as level 1 (the API's).
inline constexpr int kMaxTreeDepth = 4;

// The trees the PodGroups naming a parent (`groups`, by key) make with
// `composites`. `priority_of` gives a class's value (the global default
// for ""), for groups that do not state spec.priority.
CompositeTrees BuildCompositeTrees(
    const Composites& composites,
    const std::map<std::string, api::JobInfo>& groups,
    const std::function<int32_t(const std::string&)>& priority_of);

// The API's rules for a tree's pods, once they are in `job` (a tree's):
// each has the root's priority, and none names another scheduler (a leaf
// in `theirs`, the groups other schedulers' pods name). The first broken
// is the job's refusal.
void CheckTreePods(const api::ClusterInfo& cluster, api::JobInfo& job,
                   const std::set<std::string>& theirs,
                   const std::map<std::string, std::string>& root_of_leaf);

}  // namespace shoal::cache

#endif  // SHOAL_SCHEDULER_CACHE_COMPOSITE_JOBS_H_
