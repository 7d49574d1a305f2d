// The scheduler configuration file, in Volcano's (and kube-batch's) format:
//
//   actions: "enqueue, allocate, backfill"
//   tiers:
//   - plugins:
//     - name: priority
//     - name: gang
//       enableJobOrder: false
//   - plugins:
//     - name: nodeorder
//       arguments: {leastrequested.weight: 1}
//   configurations:
//   - name: allocate
//     arguments: {...}
//   percentageOfNodesToScore: 10   # optional, kube-scheduler's setting
//
// Parsing checks shape and types; names are checked against the
// registries when the policy is built (policy.h).
#ifndef SHOAL_SCHEDULER_FRAMEWORK_CONFIG_H_
#define SHOAL_SCHEDULER_FRAMEWORK_CONFIG_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace shoal::framework {

// Where something stands in the file, for messages: "file.yaml:12".
struct SourceLocation {
  std::string file;
  int line = 0;  // 1-based; 0 when unknown
  std::string Describe() const;
};

struct PluginConfig {
  std::string name;
  std::map<std::string, bool> switches;          // enableJobOrder: false, ...
  std::map<std::string, std::string> arguments;  // flattened
  std::string path;                              // "tiers[1].plugins[0]"
  SourceLocation location;
  // True unless the config turned `switch_key` off. Empty key: always on.
  bool Enabled(const std::string& switch_key) const;
};

struct TierConfig {
  std::vector<PluginConfig> plugins;
};

struct ActionConfig {
  std::string name;
  std::map<std::string, std::string> arguments;  // from configurations:
  SourceLocation location;
};

struct SchedulerConfig {
  std::vector<ActionConfig> actions;
  std::vector<TierConfig> tiers;
  // kube-scheduler's percentageOfNodesToScore: the share of the nodes a
  // search for a place scores (node_sampling.h). 0, the default, is
  // kube-scheduler's adaptive share; 100 scores every node.
  int percentage_of_nodes_to_score = 0;
  // What the file asks for that Shoal accepts but does not do, each
  // naming the file, line and key, shown once to the operator.
  std::vector<std::string> warnings;
  bool HasAction(absl::string_view name) const;
};

// `file` is only used in messages.
absl::StatusOr<SchedulerConfig> ParseSchedulerConfig(absl::string_view yaml,
                                                     absl::string_view file);
absl::StatusOr<SchedulerConfig> LoadSchedulerConfig(const std::string& path);

}  // namespace shoal::framework

#endif  // SHOAL_SCHEDULER_FRAMEWORK_CONFIG_H_
