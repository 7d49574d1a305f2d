// A loaded scheduler configuration: the actions to run, in order, and the
// plugin instances of each tier, with every name checked.
#ifndef SHOAL_SCHEDULER_FRAMEWORK_POLICY_H_
#define SHOAL_SCHEDULER_FRAMEWORK_POLICY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/framework/config.h"
#include "scheduler/framework/registry.h"
#include "scheduler/framework/room_promises.h"

namespace shoal::framework {

struct PluginInstance {
  PluginConfig config;
  int tier = 0;
  std::unique_ptr<Plugin> plugin;
};

struct ActionInstance {
  std::string name;
  std::unique_ptr<Action> action;
};

struct Policy {
  SchedulerConfig config;
  std::vector<ActionInstance> actions;
  std::vector<PluginInstance> plugins;
  // Argument keys no plugin or action read, one line each, for the log.
  std::vector<std::string> warnings;
  // Room held for jobs from one cycle to the next (room_promises.h).
  RoomPromises promises;
};

// The node label keys the policy names as network tiers, narrowest first
// (network-topology-aware's argument tierLabels), or none.
std::vector<std::string> NetworkTierLabels(const Policy& policy);

// Refuses an unknown action or plugin (listing the valid names) and any
// argument a factory rejects, naming the file and line.
absl::StatusOr<Policy> BuildPolicy(const SchedulerConfig& config,
                                   const PluginRegistry& plugins,
                                   const ActionRegistry& actions);

}  // namespace shoal::framework

#endif  // SHOAL_SCHEDULER_FRAMEWORK_POLICY_H_
