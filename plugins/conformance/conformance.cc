#include "plugins/conformance/conformance.h"

#include "scheduler/framework/session.h"

namespace shoal::plugins::conformance {
namespace {

using framework::Session;

class Conformance : public framework::Plugin {
 public:
  std::unique_ptr<framework::PluginSession> OnSessionOpen(Session& s) override {
    auto spare_system_pods =
        [&s](const api::TaskInfo&,
             const std::vector<api::TaskIndex>& candidates) {
          std::vector<api::TaskIndex> victims;
          for (api::TaskIndex c : candidates) {
            const api::PodInfo& pod = *s.cluster().tasks[c].pod;
            if (pod.ns == "kube-system" || pod.critical) continue;
            victims.push_back(c);
          }
          return framework::Victims(std::move(victims));
        };
    s.Register<framework::Preemptable>(spare_system_pods);
    s.Register<framework::Reclaimable>(spare_system_pods);
    return nullptr;  // nothing shared between callbacks
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments&) {
  return std::make_unique<Conformance>();
}

}  // namespace shoal::plugins::conformance
