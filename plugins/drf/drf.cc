#include "plugins/drf/drf.h"

#include <cmath>
#include <vector>

#include "scheduler/framework/session.h"

namespace shoal::plugins::drf {
namespace {

using framework::Session;

// Shares closer than this are equal: float noise must not flip an order.
constexpr double kShareEpsilon = 1e-9;

// Each job's share, kept current as the session's statements move tasks.
class DrfSession : public framework::PluginSession {
 public:
  explicit DrfSession(const api::ClusterInfo& c)
      : total_(c.total_allocatable),
        allocated_(c.jobs.size()),
        share_(c.jobs.size(), 0) {
    for (api::JobIndex j = 0; j < static_cast<api::JobIndex>(c.jobs.size());
         ++j) {
      allocated_[j] = c.Held(c.jobs[j]);
      share_[j] = allocated_[j].DominantShare(total_);
    }
  }

  int JobOrder(const api::JobInfo& a, const api::JobInfo& b) const {
    double sa = share_[a.index], sb = share_[b.index];
    if (std::abs(sa - sb) < kShareEpsilon) return 0;
    return sa < sb ? -1 : 1;
  }

  // A job may take from another while its own dominant share, with the
  // task, stays at or below the victim's share without it.
  framework::Victims Preemptable(
      const Session& s, const api::TaskInfo& preemptor,
      const std::vector<api::TaskIndex>& candidates) const {
    double mine =
        (allocated_[preemptor.job] + preemptor.counted()).DominantShare(total_);
    std::vector<api::TaskIndex> victims;
    for (api::TaskIndex t : candidates) {
      const api::TaskInfo& v = s.cluster().tasks[t];
      if (v.job == preemptor.job) continue;  // shares are between jobs
      double theirs = (allocated_[v.job] - v.counted()).DominantShare(total_);
      if (mine < theirs + kShareEpsilon) victims.push_back(t);
    }
    return framework::Victims(std::move(victims));
  }

  void Account(const api::TaskInfo& t, int sign) {
    if (sign > 0) {
      allocated_[t.job] += t.counted();
    } else {
      allocated_[t.job] -= t.counted();
    }
    share_[t.job] = allocated_[t.job].DominantShare(total_);
  }

 private:
  const api::Resource total_;
  std::vector<api::Resource> allocated_;  // by job
  std::vector<double> share_;             // by job
};

class Drf : public framework::Plugin {
 public:
  std::unique_ptr<framework::PluginSession> OnSessionOpen(Session& s) override {
    auto state = std::make_unique<DrfSession>(s.cluster());
    DrfSession* d = state.get();
    s.Register<framework::JobOrder>(
        [d](const api::JobInfo& a, const api::JobInfo& b) {
          return d->JobOrder(a, b);
        });
    s.Register<framework::Preemptable>(
        [d, &s](const api::TaskInfo& preemptor,
                const std::vector<api::TaskIndex>& candidates) {
          return d->Preemptable(s, preemptor, candidates);
        });
    s.AddEventHandler({[d](const api::TaskInfo& t) { d->Account(t, +1); },
                       [d](const api::TaskInfo& t) { d->Account(t, -1); }});
    return state;
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments&) {
  return std::make_unique<Drf>();
}

}  // namespace shoal::plugins::drf
