#include "scheduler/actions/backfill.h"

#include "scheduler/actions/job_cursor.h"
#include "scheduler/actions/network_domains.h"
#include "scheduler/actions/node_picker.h"
#include "scheduler/actions/pending_jobs.h"
#include "scheduler/actions/sub_group_placement.h"
#include "scheduler/framework/session.h"
#include "scheduler/framework/statement.h"

namespace shoal::actions {
namespace {

using framework::Session;
using framework::Statement;

bool HasPendingBestEffort(const Session& s, const api::JobInfo& job) {
  for (api::TaskIndex t : job.tasks) {
    const api::TaskInfo& task = s.cluster().tasks[t];
    if (task.status == api::TaskStatus::kPending && task.best_effort()) {
      return true;
    }
  }
  return false;
}

class Backfill : public framework::Action {
 public:
  void Execute(Session& s) override {
    PendingJobs jobs(s, [&s](api::JobInfo& job) {
      return job.PendingCount() > 0 && s.JobAdmitted(job) &&
             HasPendingBestEffort(s, job) &&
             s.JobSchedulable(job, &job.message);
    });
    for (api::JobIndex j = jobs.Next(); j != api::kNone; j = jobs.Next()) {
      api::JobInfo& job = s.job(j);
      if (!job.sub_groups.empty()) {
        // Each sub-group's pods in a domain of its own, as allocate's.
        NodePicker::Shared shared;
        JobCursor cursor(s, shared);
        for (api::TaskIndex t : job.tasks) {
          const api::TaskInfo& task = s.task(t);
          if (task.status == api::TaskStatus::kPending && task.best_effort())
            cursor.tasks.push_back(t);
        }
        while (PlaceBySubGroups(s, j, cursor)) {
        }
        continue;
      }
      NodePicker picker(s);
      // A job under a hard network constraint stays in its domain, or,
      // with nothing placed yet, tries the domains allocate would.
      if (job.network.mode != api::NetworkConstraint::Mode::kHard ||
          job.ReadyCount() > 0) {
        picker.RestrictToNodes(GrowthDomain(s, job));
        Place(s, job, picker);
        continue;
      }
      std::vector<api::TaskIndex> tasks;
      for (api::TaskIndex t : job.tasks) {
        const api::TaskInfo& task = s.task(t);
        if (task.status == api::TaskStatus::kPending && task.best_effort())
          tasks.push_back(t);
      }
      const DomainPlan plan = PlanDomains(s, job, tasks, 0);
      if (!plan.refusal.empty()) job.fit_error = plan.refusal;
      for (int32_t d : plan.domains) {
        picker.RestrictToNodes(&s.network()->domain(d).nodes);
        if (Place(s, job, picker)) break;
      }
      if (plan.anywhere && !s.Call<framework::JobReady>(job)) {
        picker.RestrictToNodes(nullptr);
        Place(s, job, picker);
      }
    }
  }

 private:
  // Places the job's pending best-effort pods; keeps them if the job is
  // then ready (its gang complete), else leaves no trace.
  static bool Place(Session& s, api::JobInfo& job, NodePicker& picker) {
    Statement stmt(s);
    for (api::TaskIndex t : std::vector<api::TaskIndex>(job.tasks)) {
      const api::TaskInfo& task = s.task(t);
      if (task.status != api::TaskStatus::kPending || !task.best_effort()) {
        continue;
      }
      api::NodeIndex n = picker.Best(task);
      if (n == api::kNone) {
        job.fit_error = s.ExplainUnplaced(task);
        break;
      }
      stmt.Allocate(t, n);
    }
    if (s.Call<framework::JobReady>(job)) {
      stmt.Commit();
      return true;
    }
    stmt.Discard();
    return false;
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<framework::Action>> NewBackfill(
    const framework::Arguments&) {
  return std::make_unique<Backfill>();
}

}  // namespace shoal::actions
