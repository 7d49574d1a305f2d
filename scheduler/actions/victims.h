// Finding room for a task by evicting others: the search shared by
// preempt and reclaim. Which tasks may go is the tiers' answer
// (Preemptable or Reclaimable); the search picks, node by node, the
// fewest of them, most expendable first, that make the task fit. Whatever
// the tiers say, no running gang is cut below its minMember.
#ifndef SHOAL_SCHEDULER_ACTIONS_VICTIMS_H_
#define SHOAL_SCHEDULER_ACTIONS_VICTIMS_H_

#include <functional>
#include <optional>
#include <vector>

#include "scheduler/framework/session.h"

namespace shoal::actions {

struct Room {
  api::NodeIndex node = api::kNone;
  std::vector<api::TaskIndex> victims;  // empty: it fits once releases finish
};

// `eligible` says which tasks on a node the action may consider at all
// (for preempt: same queue; for reclaim: other queues); `ask` is the
// tier walk of the victim callback. A node where the task fits once
// current evictions finish wins outright; otherwise the first feasible
// node, in node order, where evicting the fewest allowed victims (most
// expendable first) makes it fit.
//
// `fits_without_eviction` limits where room that needs no eviction is
// looked for (a caller that knows which nodes can have such room saves a
// scan of every node per task); null means every feasible node.
//
// `freed_enough`, when set, must also hold of what the victims free
// between them (preempt: the taker's queue may then take the task); room
// without evictions does only if it holds of nothing freed.
using FreedEnough = std::function<bool(const api::Resource& freed)>;
std::optional<Room> FindRoom(
    framework::Session& s, const api::TaskInfo& task,
    const std::function<bool(const api::TaskInfo&)>& eligible,
    const std::function<
        std::vector<api::TaskIndex>(const std::vector<api::TaskIndex>&)>& ask,
    const std::vector<api::NodeIndex>* fits_without_eviction = nullptr,
    const FreedEnough& freed_enough = nullptr);

// When no node has room without cutting a gang: a whole running gang
// whose pods on one node make the task fit, if the tiers allow evicting
// every one of its pods (on any node). The lowest-priority, then smallest,
// such gang. Used by preempt only: priority may end a whole job, fairness
// may not.
// `freed_enough` as for FindRoom, of the gang's pods on every node.
std::optional<Room> FindWholeGang(
    framework::Session& s, const api::TaskInfo& task,
    const std::function<bool(const api::TaskInfo&)>& eligible,
    const std::function<
        std::vector<api::TaskIndex>(const std::vector<api::TaskIndex>&)>& ask,
    const FreedEnough& freed_enough = nullptr);

// Rules no policy overrides: a pod marked volcano.sh/preemptable=false is
// never a victim, and a BestEffort taker only evicts BestEffort pods.
bool MayBeVictimOf(const api::TaskInfo& victim, bool taker_best_effort);

// Most expendable first: lower queue priority, lower job priority, lower task
// priority, an elastic job's surplus before a lone pod, the job with the larger
// dominant share, then the most recently created.
void SortByExpendability(const framework::Session& s,
                         std::vector<api::TaskIndex>& tasks);

}  // namespace shoal::actions

#endif  // SHOAL_SCHEDULER_ACTIONS_VICTIMS_H_
