// The jobs an action should look at this cycle, grouped by queue and
// handed out in the tiers' queue and job order.
#ifndef SHOAL_SCHEDULER_ACTIONS_PENDING_JOBS_H_
#define SHOAL_SCHEDULER_ACTIONS_PENDING_JOBS_H_

#include <functional>
#include <vector>

#include "scheduler/framework/session.h"

namespace shoal::actions {

class PendingJobs {
 public:
  // Takes every job for which `wanted` is true; `wanted` may write the
  // job's message when it turns a job away.
  // With `skip_overused_queues`, a queue the tiers call overused gets no
  // turn (allocate and reclaim: a queue at its share takes no more).
  PendingJobs(framework::Session& s,
              const std::function<bool(api::JobInfo&)>& wanted,
              bool skip_overused_queues = false);

  // The next job: from the queue that goes first now (queue order is asked
  // again each time, as shares change), its first job. kNone when done.
  api::JobIndex Next();

  // Puts a job back, to be handed out again in its turn.
  void Push(api::JobIndex job);
  // Hands out nothing more from this job's queue this cycle; returns the
  // jobs that were still waiting there.
  std::vector<api::JobIndex> CloseQueueOf(api::JobIndex job);

 private:
  std::function<bool(api::JobIndex, api::JobIndex)> GoesLater() const;

  framework::Session& s_;
  bool skip_overused_;
  // Per queue (by index into ClusterInfo.queues), a heap of jobs.
  std::vector<std::vector<api::JobIndex>> by_queue_;
};

}  // namespace shoal::actions

#endif  // SHOAL_SCHEDULER_ACTIONS_PENDING_JOBS_H_
