#include "plugins/priority/priority.h"

#include "scheduler/framework/session.h"

namespace shoal::plugins::priority {
namespace {

using framework::Session;

int Compare(int32_t a, int32_t b) { return a > b ? -1 : (a < b ? 1 : 0); }

class Priority : public framework::Plugin {
 public:
  std::unique_ptr<framework::PluginSession> OnSessionOpen(Session& s) override {
    s.Register<framework::JobOrder>(
        [](const api::JobInfo& a, const api::JobInfo& b) {
          return Compare(a.priority, b.priority);
        });
    s.Register<framework::TaskOrder>(
        [](const api::TaskInfo& a, const api::TaskInfo& b) {
          return Compare(a.pod->priority, b.pod->priority);
        });
    // Another job's task may go only for a job of higher priority; inside
    // one job, a lower-priority task may make room for a higher one.
    s.Register<framework::Preemptable>(
        [&s](const api::TaskInfo& preemptor,
             const std::vector<api::TaskIndex>& candidates) {
          const api::JobInfo& pj = s.cluster().jobs[preemptor.job];
          std::vector<api::TaskIndex> victims;
          for (api::TaskIndex c : candidates) {
            const api::TaskInfo& v = s.cluster().tasks[c];
            bool ok = v.job == preemptor.job
                          ? v.pod->priority < preemptor.pod->priority
                          : s.cluster().jobs[v.job].priority < pj.priority;
            if (ok) victims.push_back(c);
          }
          return framework::Victims(std::move(victims));
        });
    return nullptr;  // nothing shared between callbacks
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments&) {
  return std::make_unique<Priority>();
}

}  // namespace shoal::plugins::priority
