// What `explain` says a waiting gang needs besides free room (Explain's
// gang lines): the pods it still needs that the free room takes now, and,
// when that is not all of them, whether lower-priority pods hold the
// devices its claims are short of (found by the search the preempt action
// makes) or the room is there in sum but scattered over nodes (what the
// consolidate action mends).
#ifndef SHOAL_SCHEDULER_ADMIN_GANG_ROOM_H_
#define SHOAL_SCHEDULER_ADMIN_GANG_ROOM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "scheduler/api/resource.h"
#include "scheduler/framework/session.h"

namespace shoal::admin {

// The gang's pods still needed for its minimum, placed one by one in the
// free room (filters and requests only), the first that fits first.
struct FreeRoomPlan {
  int32_t needed = 0;                   // pods short of the minimum
  std::vector<api::TaskIndex> pending;  // every pending pod, in order
  std::vector<api::Resource> idle;      // by node, after those placed
  int32_t placed = 0;                   // of the first `needed` pending
  std::vector<api::TaskIndex> left;     // of those, the ones that fit not
};
FreeRoomPlan PlanFreeRoom(framework::Session& s, const api::JobInfo& job);

// The gang's lines beyond GangFix's, each a sentence (none when neither
// applies, or when the free room takes every pod it needs):
//
//   needs 2 devices of class gpu.example.com held by 2 pods of lower
//   priority: preempt would take batch/low-0, batch/low-1
//
// (without preempt in the policy: "... held by 2 pods of lower priority
// (batch/low-0, batch/low-1); a policy listing preempt would free them"),
// when the preempt action's victim search (its eligibility: same queue,
// lower priority, what the tiers' preemptable answer allows, no running
// gang cut below its minimum) places every pod the gang needs and its
// victims' claims give back devices the gang's claims ask for; and
//
//   12 nvidia.com/gpu free in all but at most 4 on one node: the room is
//   scattered; consolidate may move pods to make a node whole
//
// (without consolidate: "...; a policy listing consolidate (after
// allocate) may move pods to make a node whole"), when the pods the free
// room does not take fit the free room of the nodes they may go to in
// sum, a node could hold each when empty, but one of them asks more of a
// resource than any such node has free. Consolidate itself is not tried.
// `plan` is PlanFreeRoom's for the job; the session is left as it was.
std::vector<std::string> GangRoomLines(framework::Session& s,
                                       const api::JobInfo& job,
                                       const FreeRoomPlan& plan);

}  // namespace shoal::admin

#endif  // SHOAL_SCHEDULER_ADMIN_GANG_ROOM_H_
