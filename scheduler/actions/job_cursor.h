// What allocate keeps for a job while it places the job's pods, and the
// one step every way of placing them shares: one task onto one node.
#ifndef SHOAL_SCHEDULER_ACTIONS_JOB_CURSOR_H_
#define SHOAL_SCHEDULER_ACTIONS_JOB_CURSOR_H_

#include <set>
#include <vector>

#include "scheduler/actions/node_picker.h"
#include "scheduler/framework/session.h"
#include "scheduler/framework/statement.h"

namespace shoal::actions {

class GrowthEarmarks;  // network_domains.h

// A job's pending tasks in task order, and the node heaps for them; kept
// while the job comes back for more after its gang is placed.
struct JobCursor {
  JobCursor(framework::Session& s, NodePicker::Shared& shared)
      : picker(s, &shared) {}
  NodePicker picker;
  std::vector<api::TaskIndex> tasks;
  size_t next = 0;
  // How nodes are chosen: by the tiers' scores, or, once those failed a
  // gang, as a bin packer would (tightest fit, then first fit).
  enum class Fit { kScores, kTightest, kFirst };
  Fit fit = Fit::kScores;
  // The queue's limit (the tiers' Allocatable) refused one of its tasks.
  bool held_by_queue = false;
  // Under a hard network constraint, once the job has pods placed: the
  // domain its pods must stay in (network_domains.h).
  const std::vector<api::NodeIndex>* confined = nullptr;
  // Room that jobs under a hard constraint will grow into, which a job
  // choosing its domain leaves them (network_domains.h); null: none.
  const GrowthEarmarks* earmarks = nullptr;
  // While `pinned_task` is set, that task is tried on `pinned_node` alone
  // (the first of pods sharing a claim, tried node by node: allocate.cc).
  api::TaskIndex pinned_task = api::kNone;
  std::vector<api::NodeIndex> pinned_node = std::vector<api::NodeIndex>(1);
  // A job with sub-groups: those that found no room this pass, and
  // kUngrouped for its pods of no sub-group (api/sub_groups.h).
  std::set<int32_t> failed_groups;
  // A job with sub-groups: each sub-group's placed pods (pipelined ones
  // counted) and each policy's whole groups, as of the job's
  // status_changes: a turn asks for them many times (sub_group_placement).
  struct GroupCounts {
    uint64_t at = ~uint64_t{0};
    std::vector<int32_t> ready, whole;
  };
  GroupCounts group_counts;
};

// The job's pending tasks that allocate places (not best-effort ones), in
// the tiers' task order.
std::vector<api::TaskIndex> TasksToPlace(framework::Session& s,
                                         const api::JobInfo& job);

enum class PlaceStep { kPlaced, kNoNode, kHeld };

// Places task `t` as the cursor's fit says, or, while victims leave, on a
// node whose room they are freeing (pipelined); kHeld when its queue's
// limit refuses it, kNoNode when no node takes it. The job's fit_error
// says why; explained once per turn (`explained`): the sentence costs a
// pass over the nodes.
PlaceStep PlaceTask(framework::Session& s, api::JobInfo& job, JobCursor& cursor,
                    api::TaskIndex t, framework::Statement& stmt,
                    bool& explained);

}  // namespace shoal::actions

#endif  // SHOAL_SCHEDULER_ACTIONS_JOB_CURSOR_H_
