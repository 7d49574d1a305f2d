#include "scheduler/actions/enqueue.h"

#include "scheduler/actions/network_domains.h"
#include "scheduler/actions/pending_jobs.h"
#include "scheduler/framework/session.h"

namespace shoal::actions {
namespace {

using framework::Session;

class Enqueue : public framework::Action {
 public:
  void Execute(Session& s) override {
    Pass(s);
    // What the queues' deserved shares kept out may borrow room the first
    // pass left: votes are asked again with borrowing on.
    s.set_borrowing(true);
    Pass(s);
    s.set_borrowing(false);
  }

 private:
  static void Pass(Session& s) {
    PendingJobs jobs(s, [&s](api::JobInfo& job) {
      return job.phase == api::PodGroupPhase::kPending &&
             s.JobAdmissible(job, &job.message);
    });
    for (api::JobIndex j = jobs.Next(); j != api::kNone; j = jobs.Next()) {
      api::JobInfo& job = s.job(j);
      // A gang bound to one network domain that no domain has room for
      // would hold room it cannot use.
      std::string why = NetworkRefusal(s, job);
      job.waiting_on_network = !why.empty();
      if (why.empty() && s.Call<framework::JobEnqueueable>(job, &why)) {
        job.phase = api::PodGroupPhase::kInqueue;
        job.message.clear();
        s.Admitted(job);
      } else {
        job.message = "waiting for admission: " + why;
      }
    }
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<framework::Action>> NewEnqueue(
    const framework::Arguments&) {
  return std::make_unique<Enqueue>();
}

}  // namespace shoal::actions
