#include "plugins/drf/drf.h"

#include <cmath>
#include <vector>

#include "scheduler/framework/session.h"

namespace shoal::plugins::drf {
namespace {

using framework::Session;

// Shares closer than this are equal: float noise must not flip an order.
constexpr double kShareEpsilon = 1e-9;

class Drf : public framework::Plugin {
 public:
  void OnSessionOpen(Session& s) override {
    const api::ClusterInfo& c = s.cluster();
    total_ = c.total_allocatable;
    allocated_.assign(c.jobs.size(), api::Resource());
    share_.assign(c.jobs.size(), 0);
    for (api::JobIndex j = 0; j < static_cast<api::JobIndex>(c.jobs.size());
         ++j) {
      allocated_[j] = c.Held(c.jobs[j]);
      share_[j] = allocated_[j].DominantShare(total_);
    }
    s.Register<framework::JobOrder>(
        [this, &s](const api::JobInfo& a, const api::JobInfo& b) {
          double sa = share_[Index(s, a)], sb = share_[Index(s, b)];
          if (std::abs(sa - sb) < kShareEpsilon) return 0;
          return sa < sb ? -1 : 1;
        });
    // A job may take from another while its own dominant share, with the
    // task, stays at or below the victim's share without it.
    s.Register<framework::Preemptable>(
        [this, &s](const api::TaskInfo& preemptor,
                   const std::vector<api::TaskIndex>& candidates) {
          double mine = (allocated_[preemptor.job] + preemptor.request())
                            .DominantShare(total_);
          std::vector<api::TaskIndex> victims;
          for (api::TaskIndex t : candidates) {
            const api::TaskInfo& v = s.cluster().tasks[t];
            if (v.job == preemptor.job) continue;  // shares are between jobs
            double theirs =
                (allocated_[v.job] - v.request()).DominantShare(total_);
            if (mine < theirs + kShareEpsilon) victims.push_back(t);
          }
          return framework::Victims(std::move(victims));
        });
    s.AddEventHandler({[this](const api::TaskInfo& t) { Account(t, +1); },
                       [this](const api::TaskInfo& t) { Account(t, -1); }});
  }

 private:
  static api::JobIndex Index(const Session& s, const api::JobInfo& j) {
    return static_cast<api::JobIndex>(&j - s.cluster().jobs.data());
  }

  void Account(const api::TaskInfo& t, int sign) {
    if (sign > 0) {
      allocated_[t.job] += t.request();
    } else {
      allocated_[t.job] -= t.request();
    }
    share_[t.job] = allocated_[t.job].DominantShare(total_);
  }

  api::Resource total_;
  std::vector<api::Resource> allocated_;
  std::vector<double> share_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments&) {
  return std::make_unique<Drf>();
}

}  // namespace shoal::plugins::drf
