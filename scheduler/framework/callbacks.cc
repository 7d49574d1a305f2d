#include "scheduler/framework/callbacks.h"

namespace shoal::framework {

const std::vector<std::string>& KnownSwitches() {
  static const auto* switches = new std::vector<std::string>{
      "enableJobOrder",       "enableNamespaceOrder", "enableHierarchy",
      "enableJobReady",       "enableJobPipelined",   "enableTaskOrder",
      "enablePreemptable",    "enableReclaimable",    "enablePreemptive",
      "enableQueueOrder",     "enableClusterOrder",   "enablePredicate",
      "enableBestNode",       "enableNodeOrder",      "enableTargetJob",
      "enableReservedNodes",  "enableJobEnqueued",    "enabledVictim",
      "enableJobStarving",    "enableOverused",       "enableAllocatable",
      "enableHyperNodeOrder", "enableSubJobOrder"};
  return *switches;
}

}  // namespace shoal::framework
