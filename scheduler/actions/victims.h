// Finding room for a task by evicting others: the search shared by
// preempt and reclaim. Which tasks may go is the tiers' answer
// (Preemptable or Reclaimable); the search picks, node by node, the
// fewest of them, most expendable first, that make the task fit. Whatever
// the tiers say, no running gang is cut below its minMember. A victim
// gives back everything it holds, devices included: those of its claims
// that no staying pod shares (dra::Ledger::Release). The task's claims
// are allocated with the victims supposed gone before room is named,
// and a task with claims keeps only the victims it needs.
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
//
// `bounds`, when given, passes over nodes that cannot yield the room
// without a look at their pods; it must belong to the current session.
// `within` (sorted), when given, is where the room must be: the task's
// network domain.
//
// A job whose resize costs a restart (JobInfo::resizing.shrink_rank) is
// not shrunk for a higher-priority task when `bounds` says the action may
// end whole gangs: shrunk, it would pay the restart and then run narrow
// for the rest of its run (growing back costs another); ended whole by
// FindWholeGang, it restarts whole as soon as its pods fit.
using FreedEnough = std::function<bool(const api::Resource& freed)>;
class EvictableRoom;
std::optional<Room> FindRoom(
    framework::Session& s, const api::TaskInfo& task,
    const std::function<bool(const api::TaskInfo&)>& eligible,
    const std::function<
        std::vector<api::TaskIndex>(const std::vector<api::TaskIndex>&)>& ask,
    const std::vector<api::NodeIndex>* fits_without_eviction = nullptr,
    const FreedEnough& freed_enough = nullptr, EvictableRoom* bounds = nullptr,
    const std::vector<api::NodeIndex>* within = nullptr);

// The most evicting could free on each node, whoever asks: its future
// idle room plus every bound, preemptable pod whose job stands above its
// gang minimum and whose queue may lend at all (`lends`). Kept across the
// searches of one action, so that the thousands of nodes a cycle's
// evictions have already refilled or drained to their floors are passed
// over without a look at their pods. A node's bound is worked out again
// when the node changes, when a statement is undone, after a search found
// nothing there, and everywhere once a queue that did not lend may
// (Grew). A job or queue reaching its floor through evictions on other
// nodes only makes a bound too high, which costs a look, never a node
// missed.
class EvictableRoom {
 public:
  EvictableRoom(const framework::Session& s,
                std::function<bool(int32_t queue)> lends);
  // False when no eviction on node `n` can make room for `task`.
  bool MayFit(const api::TaskInfo& task, api::NodeIndex n);
  // A search looked at node `n` and found nothing there.
  void Forget(api::NodeIndex n) { bounds_[n].known = false; }
  // Whether tasks of `queue` may be taken at all now.
  bool Lends(int32_t queue) const { return lends_(queue); }
  // `queue` took room, and `lent` says whether it lent before: if it
  // lends now, every bound is worked out again.
  void Grew(int32_t queue, bool lent);
  // When resizes cost a restart: the elastic job above its minimum that
  // evictions shrink first (JobInfo::resizing.shrink_rank, set by the
  // elastic plugin); api::kNone when none is ranked. A search looks at that
  // job's nodes first, so it gives up all it must before another job is
  // touched.
  api::JobIndex ShrinkFirst();
  // Whether the action may end whole gangs (FindWholeGang): then a
  // higher-priority taker does not shrink a job whose resize costs a
  // restart, it ends it whole (FindRoom).
  void set_ends_whole_gangs(bool ends) { ends_whole_gangs_ = ends; }
  bool ends_whole_gangs() const { return ends_whole_gangs_; }

 private:
  struct Bound {
    bool known = false;
    uint64_t node_generation = 0;
    uint64_t discards = 0;
    uint64_t epoch = 0;
    api::Resource room;
  };
  const framework::Session& s_;
  const std::function<bool(int32_t)> lends_;
  std::vector<Bound> bounds_;  // by node
  uint64_t epoch_ = 0;         // bumped by Grew
  bool ends_whole_gangs_ = false;
  bool shrink_order_known_ = false;
  std::vector<api::JobIndex> shrink_order_;
  size_t next_to_shrink_ = 0;
};

// When no node has room without cutting a gang: a whole running gang
// whose pods on one node make the task fit, if the tiers allow evicting
// every one of its pods (on any node). The lowest-priority, then smallest,
// then most recently started (its earliest pod the latest) such gang. Used by
// preempt only: priority may end a whole job, fairness may not. `freed_enough`
// as for FindRoom, of the gang's pods on every node. With `equal_priority`
// (preempt's endWholeGangs: tiers) a gang of the taker's own priority may go
// too, when the tiers allow every one of its pods: an order such as
// least-attained-service (plugin las) then decides who runs.
std::optional<Room> FindWholeGang(
    framework::Session& s, const api::TaskInfo& task,
    const std::function<bool(const api::TaskInfo&)>& eligible,
    const std::function<
        std::vector<api::TaskIndex>(const std::vector<api::TaskIndex>&)>& ask,
    const FreedEnough& freed_enough = nullptr, bool equal_priority = false);

// Rules no policy overrides: a pod marked volcano.sh/preemptable=false is
// never a victim, and a BestEffort taker only evicts BestEffort pods.
bool MayBeVictimOf(const api::TaskInfo& victim, bool taker_best_effort);

// Most expendable first: lower queue priority, lower job priority, lower task
// priority, an elastic job's surplus before a lone pod and both before a pod
// of a scheduling.k8s.io PodGroup (KEP-5710: a PodGroup is more important
// than a lone pod); between two such PodGroups' pods the smaller unit (a
// group disrupted whole is one unit of its running pods, otherwise each pod
// is a unit of one), then the unit started last; then (when resizes cost a
// restart) a free resize before one that costs, those in the elastic
// plugin's shrink order, the job with the larger dominant share, the most
// recently created; full ties keep their order.
void SortByExpendability(const framework::Session& s,
                         std::vector<api::TaskIndex>& tasks);

}  // namespace shoal::actions

#endif  // SHOAL_SCHEDULER_ACTIONS_VICTIMS_H_
