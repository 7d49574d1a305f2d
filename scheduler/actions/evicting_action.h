// preempt and reclaim share one shape: for each starving job (JobStarving:
// a gang below its minimum, an elastic job below its target), find room
// for its pending tasks by evicting what the tiers allow, pipeline the
// tasks onto that room until it starves no more, and keep the evictions
// only if the job's gang is then complete (counting pipelined tasks).
// Otherwise nothing is evicted. Victims of elastic jobs are evicted with
// reason "elastic".
#ifndef SHOAL_SCHEDULER_ACTIONS_EVICTING_ACTION_H_
#define SHOAL_SCHEDULER_ACTIONS_EVICTING_ACTION_H_

#include <string>
#include <vector>

#include "scheduler/actions/victims.h"
#include "scheduler/framework/action.h"
#include "scheduler/framework/session.h"

namespace shoal::actions {

class EvictingAction : public framework::Action {
 public:
  void Execute(framework::Session& s) override;

 protected:
  // "preempt" or "reclaim": the eviction reason.
  virtual const char* reason() const = 0;
  // Whether queues at their share are skipped as takers.
  virtual bool skip_overused() const = 0;
  // May this job take room by eviction now?
  virtual bool Wants(framework::Session& s, const api::JobInfo& job) const = 0;
  // May `task` take room at all (queue share, preemption policy)?
  virtual bool MayTake(framework::Session& s,
                       const api::TaskInfo& task) const = 0;
  // What must hold of what `task`'s victims free between them, besides
  // making it fit; null: nothing more (room without eviction will do).
  virtual FreedEnough FreedEnoughFor(const framework::Session&,
                                     const api::TaskInfo&) const {
    return nullptr;
  }
  // Whether tasks of `queue` may be taken by any taker now (Eligible
  // asks this and more); it may turn true only for a queue that takes.
  virtual bool MayLend(const framework::Session&, int32_t /*queue*/) const {
    return true;
  }
  // Whether running tasks of `queue` (api::kNone: of jobs in no queue)
  // are considered for `taker`. Asked once per queue per search: nothing
  // changes during one.
  virtual bool Eligible(const framework::Session& s, const api::TaskInfo& taker,
                        int32_t queue) const = 0;
  // Where to look for `task`'s victims, in order: queue subtrees
  // (api::kNone: anywhere Eligible allows). When MayTake refused the
  // task, only a scoped search is tried, and its evictions are kept only
  // if MayTake agrees once they are made: room freed inside a parent
  // queue at its limit is room the parent may give again.
  virtual std::vector<int32_t> Scopes(const framework::Session&,
                                      const api::TaskInfo&) const {
    return {api::kNone};
  }
  // Whether a whole running gang may be evicted when no surplus suffices,
  // and whether one of the taker's own priority may (the tiers decide).
  virtual bool may_end_whole_gangs() const { return false; }
  virtual bool ends_equal_priority_gangs() const { return false; }
  // The tiers' victim answer for `taker` among `candidates`.
  virtual std::vector<api::TaskIndex> Ask(
      const framework::Session& s, const api::TaskInfo& taker,
      const std::vector<api::TaskIndex>& candidates) const = 0;

 private:
  // Where the room is looked for, and whether it is kept.
  struct Search {
    // Only these nodes (a network domain), or every node.
    const std::vector<api::NodeIndex>* within = nullptr;
    // Count the evictions it would take, keep nothing.
    bool dry_run = false;
    int evictions = 0;  // out
  };
  // Finds room for the job's pending tasks in `order`, each by eviction
  // where it must; keeps it all if the job then starves no more. Sets
  // `partway` once any task found room.
  bool TakeInOrder(framework::Session& s, api::JobInfo& job,
                   const std::vector<api::TaskIndex>& order,
                   EvictableRoom& bounds, bool* partway, Search& search);
  // For a gang bound to one network domain: the domain within its limit
  // where its room costs the fewest evictions (of the first
  // kDomainsTried, narrowest tier first), victims all inside it.
  void TakeInOneDomain(framework::Session& s, api::JobInfo& job,
                       const std::vector<api::TaskIndex>& order,
                       EvictableRoom& bounds);
};

}  // namespace shoal::actions

#endif  // SHOAL_SCHEDULER_ACTIONS_EVICTING_ACTION_H_
