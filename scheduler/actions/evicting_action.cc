#include "scheduler/actions/evicting_action.h"

#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

#include "scheduler/actions/network_domains.h"
#include "scheduler/actions/pending_jobs.h"
#include "scheduler/actions/victims.h"
#include "scheduler/api/queue_tree.h"
#include "scheduler/framework/statement.h"

namespace shoal::actions {
namespace {

// Which queues' tasks one search may take, inside `scope` (a queue's
// subtree; api::kNone: anywhere): asked of the action once per queue,
// since a search visits the same few queues on thousands of nodes.
class QueueFilter {
 public:
  QueueFilter(const framework::Session& s, int32_t scope,
              std::function<bool(int32_t)> eligible)
      : s_(s),
        scope_(scope),
        eligible_(std::move(eligible)),
        known_(s.cluster().queues.size() + 1, kUnknown) {}

  bool Admits(int32_t q) {
    int8_t& known = known_[q == api::kNone ? known_.size() - 1 : q];
    if (known == kUnknown) {
      known =
          (scope_ == api::kNone || api::InSubtree(s_.cluster(), q, scope_)) &&
                  eligible_(q)
              ? kYes
              : kNo;
    }
    return known == kYes;
  }

  // Whether some queue in a scoped search both may lend and holds
  // anything: a scope without one is not worth a scan of every node.
  // (Anywhere is always searched: asking every queue costs more than
  // the scan it would save.)
  bool AnyHolds() {
    if (scope_ == api::kNone) return true;
    std::vector<int32_t> stack{scope_};
    while (!stack.empty()) {
      int32_t q = stack.back();
      stack.pop_back();
      // What the queue's own jobs hold (a parent's, left from before it
      // had children, too).
      api::Resource own = s_.QueueHeld(q);
      const auto& children = s_.cluster().queues[q].children;
      for (int32_t child : children) own -= s_.QueueHeld(child);
      if (!own.IsZero() && Admits(q)) return true;
      stack.insert(stack.end(), children.begin(), children.end());
    }
    return false;
  }

 private:
  static constexpr int8_t kUnknown = -1, kNo = 0, kYes = 1;
  const framework::Session& s_;
  const int32_t scope_;
  const std::function<bool(int32_t)> eligible_;
  std::vector<int8_t> known_;  // by queue; the last entry: no queue
};

}  // namespace

void EvictingAction::Execute(framework::Session& s) {
  PendingJobs jobs(
      s,
      [&](api::JobInfo& job) {
        return job.PendingCount() > 0 && s.JobAdmitted(job) &&
               s.JobSchedulable(job, &job.message) && s.Starving(job) &&
               Wants(s, job);
      },
      skip_overused());
  EvictableRoom bounds(s, [&](int32_t q) { return MayLend(s, q); });
  bounds.set_ends_whole_gangs(may_end_whole_gangs());
  for (api::JobIndex j = jobs.Next(); j != api::kNone; j = jobs.Next()) {
    api::JobInfo& job = s.job(j);
    std::vector<api::TaskIndex> pending;
    for (api::TaskIndex t : job.tasks) {
      const api::TaskInfo& task = s.task(t);
      if (task.status == api::TaskStatus::kPending) pending.push_back(t);
    }
    std::stable_sort(pending.begin(), pending.end(),
                     [&s](api::TaskIndex a, api::TaskIndex b) {
                       return s.TaskBefore(s.task(a), s.task(b));
                     });
    if (job.network.mode == api::NetworkConstraint::Mode::kHard) {
      TakeInOneDomain(s, job, pending, bounds);
      continue;
    }
    bool partway = false;
    Search anywhere;
    if (TakeInOrder(s, job, pending, bounds, &partway, anywhere) || !partway)
      continue;
    // Pods of unequal size: room the small ones took first may be the
    // only room the large one fits (or cost evictions it would not
    // have). Once more, largest first.
    std::vector<api::TaskIndex> largest_first = pending;
    const api::Resource& total = s.cluster().total_allocatable;
    std::stable_sort(largest_first.begin(), largest_first.end(),
                     [&](api::TaskIndex a, api::TaskIndex b) {
                       return s.task(a).request().DominantShare(total) >
                              s.task(b).request().DominantShare(total);
                     });
    if (largest_first != pending) {
      TakeInOrder(s, job, largest_first, bounds, &partway, anywhere);
    }
  }
}

void EvictingAction::TakeInOneDomain(framework::Session& s, api::JobInfo& job,
                                     const std::vector<api::TaskIndex>& order,
                                     EvictableRoom& bounds) {
  // As Volcano's hypernode.gradient.evict.max-hypernodes: a search per
  // domain is a dry run of the whole gang.
  constexpr size_t kDomainsTried = 8;
  const DomainPlan plan = PlanDomains(s, job, order, 0);
  std::vector<int32_t> domains;
  for (const DomainPlan::Room& r : plan.rooms) {
    if (r.holds_placed && domains.size() < kDomainsTried)
      domains.push_back(r.domain);
  }
  const std::vector<api::NodeIndex>* best = nullptr;
  int fewest = 0;
  bool partway = false;
  for (int32_t d : domains) {
    Search dry{&s.network()->domain(d).nodes, /*dry_run=*/true};
    if (TakeInOrder(s, job, order, bounds, &partway, dry) &&
        (best == nullptr || dry.evictions < fewest)) {
      best = dry.within;
      fewest = dry.evictions;
    }
  }
  if (best == nullptr && !plan.anywhere) return;
  Search chosen{best};  // null: the whole cluster, within the limit
  TakeInOrder(s, job, order, bounds, &partway, chosen);
}

bool EvictingAction::TakeInOrder(framework::Session& s, api::JobInfo& job,
                                 const std::vector<api::TaskIndex>& order,
                                 EvictableRoom& bounds, bool* partway,
                                 Search& search) {
  framework::Statement stmt(s);
  // Nodes with room that needs no eviction: found once per kind of
  // task (request and placement), then only the nodes this statement
  // evicted on can gain such room.
  std::vector<std::pair<const api::TaskInfo*, std::vector<api::NodeIndex>>>
      roomy;
  auto roomy_for =
      [&](const api::TaskInfo& task) -> std::vector<api::NodeIndex>& {
    for (auto& [exemplar, nodes] : roomy) {
      if (exemplar->PlacedAlike(task)) return nodes;
    }
    std::vector<api::NodeIndex> nodes;
    for (api::NodeIndex n : s.Feasible(task.placement()).nodes) {
      if (search.within != nullptr &&
          !std::binary_search(search.within->begin(), search.within->end(),
                              n)) {
        continue;
      }
      if (s.FitsOnceReleased(task, s.node(n), s.node(n).FutureIdle()))
        nodes.push_back(n);
    }
    roomy.emplace_back(&task, std::move(nodes));
    return roomy.back().second;
  };
  for (api::TaskIndex t : order) {
    const api::TaskInfo& task = s.task(t);
    // Take only what the job is short of (its gang minimum, or its
    // elastic target); beyond that it waits for free room.
    // preemptionPolicy: Never takes nothing by eviction, whichever action
    // would do the evicting (Volcano issue #3642).
    if (!s.Starving(job) || task.pod->preempt_never) break;
    const bool may_take = MayTake(s, task);
    std::vector<api::NodeIndex>& free_room = roomy_for(task);
    FreedEnough freed_enough = FreedEnoughFor(s, task);
    if (!may_take) {
      // Only room freed inside a scope at its limit can be given again:
      // idle room elsewhere, or victims freeing less than the task asks,
      // leave the limit where it was.
      freed_enough =
          [&task, inner = std::move(freed_enough)](const api::Resource& freed) {
            return task.request().FitsIn(freed) && (!inner || inner(freed));
          };
    }
    bool placed = false;
    for (int32_t scope : Scopes(s, task)) {
      if (!may_take && scope == api::kNone) continue;
      QueueFilter filter(s, scope,
                         [&](int32_t q) { return Eligible(s, task, q); });
      if (!filter.AnyHolds()) continue;
      auto eligible = [&](const api::TaskInfo& other) {
        return filter.Admits(s.cluster().jobs[other.job].queue_index);
      };
      auto ask = [&](const std::vector<api::TaskIndex>& candidates) {
        return Ask(s, task, candidates);
      };
      auto room = FindRoom(s, task, eligible, ask, &free_room, freed_enough,
                           &bounds, search.within);
      // Ending whole gangs takes pods wherever they run: not for a gang
      // whose victims must all be in its domain.
      if (!room.has_value() && may_end_whole_gangs() &&
          search.within == nullptr) {
        room = FindWholeGang(s, task, eligible, ask, freed_enough,
                             ends_equal_priority_gangs());
      }
      if (!room.has_value()) continue;
      // Free room for a pod that asks for nothing is backfill's to give:
      // pipelined here it would wait for a later cycle, and be pipelined
      // again there, for ever, where this action runs before backfill.
      if (room->victims.empty() && task.best_effort()) continue;
      const size_t mark = stmt.Mark();
      for (api::TaskIndex v : room->victims) {
        // Shrinking an elastic job is its own reason, whoever asked.
        const char* why = s.job(s.task(v).job).elastic() ? "elastic" : reason();
        stmt.Evict(v, why, task.pod->Key());
      }
      if (!may_take && !MayTake(s, task)) {
        stmt.DiscardSince(mark);
        continue;
      }
      // Its claims are allocated on the devices the victims now give
      // back (Pipeline places them so); the search supposed the same
      // victims gone, and this is the statement's own word, before
      // anything is evicted for real.
      const api::NodeInfo& target = s.node(room->node);
      if (!task.pod->resource_claims.empty() &&
          !s.FitsOnceReleased(task, target, target.FutureIdle())) {
        stmt.DiscardSince(mark);
        continue;
      }
      if (!room->victims.empty()) {
        for (auto& [exemplar, nodes] : roomy) nodes.push_back(room->node);
      }
      search.evictions += static_cast<int>(room->victims.size());
      const bool lent = bounds.Lends(job.queue_index);
      stmt.Pipeline(t, room->node);
      bounds.Grew(job.queue_index, lent);
      placed = true;
      *partway = true;
      break;
    }
    if (!placed) break;
  }
  // Room found without evicting (freed by earlier evictions) is kept for
  // the job too.
  if (s.Call<framework::JobPipelined>(job)) {
    if (search.dry_run) {
      stmt.Discard();
    } else {
      stmt.Commit();
    }
    return true;
  }
  stmt.Discard();
  return false;
}

}  // namespace shoal::actions
