#include "scheduler/actions/evicting_action.h"

#include <algorithm>

#include "scheduler/actions/pending_jobs.h"
#include "scheduler/actions/victims.h"
#include "scheduler/framework/statement.h"

namespace shoal::actions {

void EvictingAction::Execute(framework::Session& s) {
  PendingJobs jobs(
      s,
      [&](api::JobInfo& job) {
        return job.PendingCount() > 0 && s.JobAdmitted(job) &&
               s.JobSchedulable(job, &job.message) && Wants(s, job);
      },
      skip_overused());
  for (api::JobIndex j = jobs.Next(); j != api::kNone; j = jobs.Next()) {
    api::JobInfo& job = s.job(j);
    std::vector<api::TaskIndex> pending;
    for (api::TaskIndex t : job.tasks) {
      const api::TaskInfo& task = s.task(t);
      if (task.status == api::TaskStatus::kPending && !task.best_effort()) pending.push_back(t);
    }
    std::stable_sort(pending.begin(), pending.end(), [&s](api::TaskIndex a, api::TaskIndex b) {
      return s.TaskBefore(s.task(a), s.task(b));
    });
    framework::Statement stmt(s);
    bool evicted = false;
    for (api::TaskIndex t : pending) {
      const api::TaskInfo& task = s.task(t);
      if (!MayTake(s, task)) break;
      auto room = FindRoom(
          s, task, [&](const api::TaskInfo& other) { return Eligible(s, task, other); },
          [&](const std::vector<api::TaskIndex>& candidates) { return Ask(s, task, candidates); });
      if (!room.has_value()) break;
      for (api::TaskIndex v : room->victims) {
        stmt.Evict(v, reason(), task.pod->Key());
        evicted = true;
      }
      stmt.Pipeline(t, room->node);
      // Evict for the gang's minimum only; growth beyond it waits for
      // free room.
      if (job.ReadyCount() + job.Count(api::TaskStatus::kPipelined) >= job.min_member) break;
    }
    if (evicted && s.Call<framework::JobPipelined>(job)) {
      stmt.Commit();
    } else {
      stmt.Discard();
    }
  }
}

}  // namespace shoal::actions
