// The "Groups" table of `shoalctl explain podgroup` for a gang with
// levels: Volcano's sub-groups (spec.subGroupPolicy) or a
// CompositePodGroup tree (KEP-6012). A tree waits while one level is
// short, and the job's own counts (ready, pending, minMember) do not say
// which: each composite's groups whole against its minGroupCount, and
// each leaf's pods placed against its minCount, do.
#ifndef SHOAL_SCHEDULER_ADMIN_GROUP_STANDING_H_
#define SHOAL_SCHEDULER_ADMIN_GROUP_STANDING_H_

#include <string>
#include <vector>

#include "proto/admin.pb.h"
#include "scheduler/api/cluster_info.h"

namespace shoal::admin {

// One row per policy (a composite) and per group under it (a leaf
// PodGroup, or one of Volcano's sub-groups), parents first, each policy
// followed by its own groups and then its child policies. A leaf whose
// PodGroup no pod names yet is listed with no pods. Empty for a job
// without sub-groups.
std::vector<v1::GroupStanding> GroupStandings(const api::ClusterInfo& c,
                                              const api::JobInfo& job);

// The job of a CompositePodGroup tree one of whose composites or leaf
// PodGroups is `key` (namespace/name), or kNone: a user names the group
// they made, and the tree's job is named after its root.
api::JobIndex TreeHolding(const api::ClusterInfo& c, const std::string& key);

// Whether `row` is a leaf (a PodGroup or one of Volcano's sub-groups),
// whose counts are pods, rather than a composite or policy, whose counts
// are groups.
bool CountsPods(const v1::GroupStanding& row);

// "short of 1 group", "short of 4 pods", or "whole".
std::string GroupVerdict(const v1::GroupStanding& row);

}  // namespace shoal::admin

#endif  // SHOAL_SCHEDULER_ADMIN_GROUP_STANDING_H_
