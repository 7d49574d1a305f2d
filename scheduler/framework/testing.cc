#include "scheduler/framework/testing.h"

#include <cstdlib>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "scheduler/framework/action.h"

namespace shoal::framework::testing {

namespace {
[[noreturn]] void Die(const absl::Status& s) {
  std::cerr << "test setup failed: " << s << "\n";
  std::abort();
}
}  // namespace

api::Resource Res(const ResourceList& list) {
  auto r = api::Resource::FromList(list, "test");
  if (!r.ok()) Die(r.status());
  return *r;
}

std::shared_ptr<api::NodeSpec> Node(const std::string& name,
                                    const ResourceList& allocatable) {
  auto spec = std::make_shared<api::NodeSpec>();
  spec->name = name;
  spec->allocatable = Res(allocatable);
  if (spec->allocatable.Get(api::kPods) == 0) {
    spec->allocatable.Set(api::kPods, 110);
  }
  return spec;
}

std::shared_ptr<api::PodInfo> Pod(const std::string& name,
                                  const ResourceList& request) {
  auto pod = std::make_shared<api::PodInfo>();
  pod->ns = "default";
  pod->name = name;
  pod->uid = "uid-" + name;
  pod->scheduler_name = "shoal";
  pod->request = Res(request);
  pod->request.Set(api::kPods, 1);
  auto placement = std::make_shared<api::PlacementConstraints>();
  placement->ComputeFingerprint();
  pod->placement = placement;
  return pod;
}

api::JobIndex AddGang(api::ClusterBuilder& b, const std::string& name,
                      int min_member, int count, const ResourceList& request) {
  api::JobInfo job;
  job.ns = "default";
  job.name = name;
  job.uid = "uid-" + name;
  job.min_member = min_member;
  api::JobIndex j = b.AddJob(job);
  for (int i = 0; i < count; ++i) {
    b.AddTask(Pod(absl::StrCat(name, "-", i), request), j);
  }
  return j;
}

namespace {
class Idle : public Action {
  void Execute(Session&) override {}
};
}  // namespace

ActionRegistry IdleActions() {
  ActionRegistry r;
  for (const char* name : {"enqueue", "allocate", "backfill"}) {
    r.Add(name,
          [](const Arguments&) -> absl::StatusOr<std::unique_ptr<Action>> {
            return std::make_unique<Idle>();
          });
  }
  return r;
}

Policy MustPolicy(const std::string& yaml, const PluginRegistry& plugins,
                  const ActionRegistry& actions) {
  auto config = ParseSchedulerConfig(yaml, "test.yaml");
  if (!config.ok()) Die(config.status());
  auto policy = BuildPolicy(*config, plugins, actions);
  if (!policy.ok()) Die(policy.status());
  return std::move(*policy);
}

}  // namespace shoal::framework::testing
