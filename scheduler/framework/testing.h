// Small builders for tests: nodes, pods and jobs from short literals.
#ifndef SHOAL_SCHEDULER_FRAMEWORK_TESTING_H_
#define SHOAL_SCHEDULER_FRAMEWORK_TESTING_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "scheduler/api/cluster_builder.h"
#include "scheduler/framework/policy.h"

namespace shoal::framework::testing {

using ResourceList = std::vector<std::pair<std::string, std::string>>;

api::Resource Res(const ResourceList& list);

std::shared_ptr<api::NodeSpec> Node(const std::string& name,
                                    const ResourceList& allocatable);

// A pending pod asking for `request` (one "pods" is added).
std::shared_ptr<api::PodInfo> Pod(const std::string& name,
                                  const ResourceList& request);

// Adds a job named `name` with `count` identical pending pods.
api::JobIndex AddGang(api::ClusterBuilder& b, const std::string& name,
                      int min_member, int count, const ResourceList& request);

// "enqueue", "allocate" and "backfill" registered as actions that do
// nothing, for tests of the framework alone.
ActionRegistry IdleActions();

// Parses `yaml` as a scheduler configuration and builds it with the given
// registries; fails the test on error.
Policy MustPolicy(const std::string& yaml, const PluginRegistry& plugins,
                  const ActionRegistry& actions);

// The placing policy the action tests share: enqueue, allocate and
// backfill, with gang and priority ordering and the predicates and
// nodeorder plugins.
inline constexpr char kPlacingPolicy[] = R"(
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: predicates
  - name: nodeorder
)";

// The same with preempt in place of backfill (and no conformance plugin):
// for tests of what preemption takes.
inline constexpr char kPreemptingPolicy[] = R"(
actions: "enqueue, allocate, preempt"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
  - name: nodeorder
)";

}  // namespace shoal::framework::testing

#endif  // SHOAL_SCHEDULER_FRAMEWORK_TESTING_H_
