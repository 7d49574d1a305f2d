#include "scheduler/framework/callbacks.h"

#include <algorithm>
#include <map>

namespace shoal::framework {
namespace {

// Volcano's spellings, as its PluginOption's yaml tags give them.
const std::vector<std::string>& VolcanoSwitches() {
  static const auto* switches = new std::vector<std::string>{
      "enableJobOrder",      "enableNamespaceOrder",
      "enableHierarchy",     "enableJobReady",
      "enableJobPipelined",  "enableTaskOrder",
      "enablePreemptable",   "enableReclaimable",
      "enablePreemptive",    "enableQueueOrder",
      "enabledClusterOrder", "enablePredicate",
      "enableBestNode",      "enableNodeOrder",
      "enableTargetJob",     "enableReservedNodes",
      "enableJobEnqueued",   "enabledVictim",
      "enableJobStarving",   "enabledOverused",
      "enabledAllocatable",  "enabledHyperNodeOrder",
      "enabledSubJobReady",  "enabledSubJobPipelined",
      "enabledSubJobOrder",  "enabledHyperNodeGradient"};
  return *switches;
}

// Other spellings seen in Volcano's history (and in Shoal's own earlier
// files) for the same switches.
const std::map<std::string, std::string>& Aliases() {
  static const auto* aliases = new std::map<std::string, std::string>{
      {"enableOverused", "enabledOverused"},
      {"enableAllocatable", "enabledAllocatable"},
      {"enableClusterOrder", "enabledClusterOrder"},
      {"EnabledClusterOrder", "enabledClusterOrder"},
      {"enableHyperNodeOrder", "enabledHyperNodeOrder"},
      {"enableSubJobOrder", "enabledSubJobOrder"},
      {"enableVictim", "enabledVictim"}};
  return *aliases;
}

template <typename... Kinds>
bool AnyKindObeys(const std::string& key) {
  return ((key == Kinds::kSwitch) || ...);
}

}  // namespace

const std::vector<std::string>& KnownSwitches() {
  static const auto* all = [] {
    auto* v = new std::vector<std::string>(VolcanoSwitches());
    for (const auto& [alias, canonical] : Aliases()) v->push_back(alias);
    return v;
  }();
  return *all;
}

std::string CanonicalSwitch(const std::string& key) {
  auto it = Aliases().find(key);
  return it == Aliases().end() ? key : it->second;
}

bool SwitchHasCallback(const std::string& canonical) {
  return AnyKindObeys<QueueOrder, JobOrder, TaskOrder, JobValid, JobReady,
                      JobPipelined, JobEnqueueable, JobStarving, Overused,
                      Allocatable, Preemptive, Predicate, Fit, NodeOrder,
                      Preemptable, Reclaimable>(canonical);
}

}  // namespace shoal::framework
