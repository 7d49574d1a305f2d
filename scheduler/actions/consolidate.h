// consolidate (opt-in: list it in the actions, after allocate): re-packs
// a fragmented cluster so that a waiting gang fits. When a gang that
// allocate left waiting would fit the cluster's free room in sum, but no
// placement exists because that room is scattered over nodes, running
// pods are moved out of the way: each is evicted, its job's controller
// makes a new pod in its place, and room for that pod is held on another
// node. The plan is made whole in a statement first (the gang pipelined
// on the room the moves free, every moved pod's replacement placed
// elsewhere) and kept only if all of it fits; the fewest moves win.
// KAI-Scheduler's consolidation is the model.
//
// What may move: pods of jobs with a PodGroup (a bare pod has no
// controller to bring it back), of no higher priority than the gang,
// not marked volcano.sh/preemptable=false or system-critical, without
// resource claims, persistent volume claims or inter-pod rules (their
// replacement's room cannot be promised whole). A gang is never cut
// below its minimum: a job moves its pods above the minimum one by one,
// or all of its running pods at once (a job disrupted whole only so).
//
// The room is held across cycles (framework/room_promises.h): the gang's
// on the nodes it was pipelined to, each replacement's where it was
// placed, until they are taken or `holdSeconds` passed.
//
// Arguments (the action's `arguments:`):
//   maxMovesPerCycle  pods moved in one cycle, all gangs together (8)
//   maxMovesPerJob    pods of one job moved within the window (4)
//   windowSeconds     a pod (by name) moves at most once, and a job at most
//                     maxMovesPerJob times, within this window (600)
//   holdSeconds       how long the room stays promised (120)
#ifndef SHOAL_SCHEDULER_ACTIONS_CONSOLIDATE_H_
#define SHOAL_SCHEDULER_ACTIONS_CONSOLIDATE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "scheduler/framework/action.h"
#include "scheduler/framework/arguments.h"

namespace shoal::actions {

absl::StatusOr<std::unique_ptr<framework::Action>> NewConsolidate(
    const framework::Arguments& args);

}  // namespace shoal::actions

#endif  // SHOAL_SCHEDULER_ACTIONS_CONSOLIDATE_H_
