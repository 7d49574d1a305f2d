#include "scheduler/actions/allocate.h"

#include <algorithm>
#include <vector>

#include "scheduler/actions/node_picker.h"
#include "scheduler/actions/pending_jobs.h"
#include "scheduler/framework/session.h"
#include "scheduler/framework/statement.h"

namespace shoal::actions {
namespace {

using framework::Session;
using framework::Statement;

// Pending tasks of `job` that ask for resources, in task order.
std::vector<api::TaskIndex> TasksToPlace(Session& s, const api::JobInfo& job) {
  std::vector<api::TaskIndex> tasks;
  for (api::TaskIndex t : job.tasks) {
    const api::TaskInfo& task = s.task(t);
    if (task.status == api::TaskStatus::kPending && !task.best_effort()) {
      tasks.push_back(t);
    }
  }
  std::stable_sort(tasks.begin(), tasks.end(), [&s](api::TaskIndex a, api::TaskIndex b) {
    return s.TaskBefore(s.task(a), s.task(b));
  });
  return tasks;
}

class Allocate : public framework::Action {
 public:
  void Execute(Session& s) override {
    PendingJobs jobs(s, [&s](api::JobInfo& job) {
      return job.PendingCount() > 0 && s.JobAdmitted(job) &&
             s.JobSchedulable(job, &job.message);
    });
    for (api::JobIndex j = jobs.Next(); j != api::kNone; j = jobs.Next()) {
      PlaceJob(s, j);
    }
  }

 private:
  // Places as many of the job's tasks as fit, then keeps the placements
  // only if the job is ready (its gang complete). A gang that is only
  // complete counting pipelined tasks holds its room without binding.
  static void PlaceJob(Session& s, api::JobIndex j) {
    api::JobInfo& job = s.job(j);
    NodePicker picker(s);
    Statement stmt(s);
    for (api::TaskIndex t : TasksToPlace(s, job)) {
      const api::TaskInfo& task = s.task(t);
      if (api::NodeIndex n = picker.Best(task); n != api::kNone) {
        stmt.Allocate(t, n);
        continue;
      }
      if (s.any_releasing()) {
        if (api::NodeIndex n = picker.BestAfterEvictions(task); n != api::kNone) {
          stmt.Pipeline(t, n);
          continue;
        }
      }
      job.fit_error = s.ExplainUnplaced(task);
      break;
    }
    if (s.Call<framework::JobReady>(job)) {
      stmt.Commit();
    } else if (s.Call<framework::JobPipelined>(job)) {
      stmt.Hold();
    } else {
      stmt.Discard();
    }
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<framework::Action>> NewAllocate(
    const framework::Arguments&) {
  return std::make_unique<Allocate>();
}

}  // namespace shoal::actions
