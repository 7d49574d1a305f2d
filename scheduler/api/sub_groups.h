// Sub-groups of a job (Volcano's PodGroup spec.subGroupPolicy): its pods
// split into smaller gangs, each placed whole and, when its policy says
// so, inside one network domain of its own, while the job as a whole
// keeps its own minimum and its own domain.
//
// A pod belongs to the first policy whose labelSelector it matches (no
// selector: every pod) and, under that policy, to the sub-group of the
// values its labels give the policy's matchLabelKeys (pods missing a key
// belong to no sub-group of that policy, as in Volcano). A policy without
// matchLabelKeys cuts its pods into sub-groups of subGroupSize, in order
// of the pods' names (numbers inside names compared as numbers), where
// Volcano would leave them ungrouped. Pods of no policy are placed as any
// pod of the job.
//
// The same model holds Kubernetes' CompositePodGroup trees (KEP-6012,
// scheduling.k8s.io/v1alpha3): the root is the job, each composite a
// policy whose sub-groups are its leaf PodGroups (a pod joins the one it
// names, each with its own minCount) and whose minSubGroups is its
// minGroupCount. A composite under another is a policy with a parent: it
// counts as one of its parent's groups once it has its own minimum whole,
// so the job checks its top-level policies only. Policies are listed
// parents first.
#ifndef SHOAL_SCHEDULER_API_SUB_GROUPS_H_
#define SHOAL_SCHEDULER_API_SUB_GROUPS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/api/devices.h"
#include "scheduler/api/network_topology.h"
#include "scheduler/api/pod_affinity.h"

namespace shoal::api {

struct ClusterInfo;
struct JobInfo;

// A leaf PodGroup of a composite tree: its pods are one sub-group.
struct LeafPodGroup {
  std::string name;           // the PodGroup's, as pods name it
  std::string uid;            // the PodGroup's, as its claims' consumer
  int32_t min_count = 1;      // its gang minCount (basic: 1)
  NetworkConstraint network;  // its schedulingConstraints.topology
  // Its spec.resourceClaims: claims its pods share (dra/group_claims.h).
  std::vector<PodClaim> claims;
  bool operator==(const LeafPodGroup& o) const {
    return name == o.name && uid == o.uid && min_count == o.min_count &&
           network == o.network && claims == o.claims;
  }
};

// One entry of spec.subGroupPolicy, or one composite of a tree.
struct SubGroupPolicy {
  std::string name;
  int32_t size = 1;        // subGroupSize: a sub-group's own gang minimum
  int32_t min_groups = 0;  // minSubGroups: whole sub-groups the job needs
  std::optional<LabelSelector> selector;  // labelSelector; none: every pod
  std::vector<std::string> match_label_keys;
  NetworkConstraint network;
  // A composite of a tree: the policy holding it (kNone: the job), and its
  // leaf PodGroups, matched by the PodGroup pods name, not by labels.
  // A composite's `network` keeps everything under it in one domain (its
  // leaves' own constraints are theirs, LeafPodGroup::network), where a
  // Volcano policy's holds each of its sub-groups in a domain of its own.
  bool composite = false;
  int32_t parent = kNone;
  std::vector<LeafPodGroup> leaves;
  bool operator==(const SubGroupPolicy& o) const {
    return name == o.name && size == o.size && min_groups == o.min_groups &&
           selector == o.selector && match_label_keys == o.match_label_keys &&
           network == o.network && composite == o.composite &&
           parent == o.parent && leaves == o.leaves;
  }
};

struct SubGroup {
  int32_t policy = kNone;  // index in JobInfo::sub_group_policies
  // The values of the policy's matchLabelKeys joined by "-", or, for a
  // policy without keys, the sub-group's number; a leaf PodGroup's name.
  std::string key;
  int32_t size = 1;      // pods that make it whole: subGroupSize or minCount
  int32_t leaf = kNone;  // index in its policy's leaves, if one
};

// The network constraint sub-group `g` of the job is placed under: its
// leaf PodGroup's, else its policy's.
const NetworkConstraint& SubGroupNetwork(const JobInfo& job, int32_t g);

// Assigns each task of job `j` its sub-group (TaskInfo::sub_group) and
// rebuilds the job's sub_groups, in policy order, then key order.
void PartitionSubGroups(ClusterInfo& c, JobIndex j);

// "worker/3": the sub-group as messages name it.
std::string SubGroupName(const JobInfo& job, int32_t group);

// The tasks of sub-group `group` that are placed or done (Allocated,
// Binding, Bound, Running, Succeeded), plus pipelined ones when
// `with_pipelined`.
int32_t SubGroupReady(const ClusterInfo& c, const JobInfo& job, int32_t group,
                      bool with_pipelined = false);

// The same for every sub-group of the job at once, by index.
std::vector<int32_t> SubGroupsReady(const ClusterInfo& c, const JobInfo& job,
                                    bool with_pipelined = false);
// Per policy, how many of its groups are whole: its sub-groups whose
// `ready` (as SubGroupsReady answers) reaches their size, and its child
// policies (composites) that have their own minSubGroups whole.
std::vector<int32_t> WholeByPolicy(const JobInfo& job,
                                   const std::vector<int32_t>& ready);

// Whether every top-level policy has its minSubGroups whole with `ready`.
bool SubGroupsSatisfied(const JobInfo& job, const std::vector<int32_t>& ready);

// Why the job's sub-groups do not let it start (minSubGroups of some
// policy not met by whole sub-groups), or "" when they do. Counts
// pipelined tasks when `with_pipelined`.
std::string SubGroupsShort(const ClusterInfo& c, const JobInfo& job,
                           bool with_pipelined = false);

// Why the job can never start as its pods stand (a policy with fewer
// sub-groups than its minSubGroups), or "".
std::string SubGroupsTooFew(const JobInfo& job);

}  // namespace shoal::api

#endif  // SHOAL_SCHEDULER_API_SUB_GROUPS_H_
