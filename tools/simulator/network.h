// The simulated network (scenario.h, NetworkSpec): which rack and spine
// each node is in, the HyperNodes that tell the scheduler so, and the
// world's side of topology: how far a job's pods are spread, and so how
// much slower it runs. The scheduler learns the network only from the
// HyperNodes, as it would in a cluster.
#ifndef SHOAL_TOOLS_SIMULATOR_NETWORK_H_
#define SHOAL_TOOLS_SIMULATOR_NETWORK_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "scheduler/api/network_topology.h"
#include "tools/simulator/scenario.h"
#include "tools/simulator/simulator.h"

namespace shoal::sim {

// The name of node `i` of `pool`, as the simulator creates it.
std::string NodeName(const NodePool& pool, int i);

// How far a job's pods are spread: one rack, one spine, or wider.
enum class Span { kRack = 1, kSpine = 2, kCluster = 3 };
const char* SpanName(Span span);  // "rack", "spine", "cluster"

class Network {
 public:
  explicit Network(const Scenario& sc);

  bool empty() const { return spec_.spines == 0; }
  int racks() const { return spec_.racks(); }
  // rack-K (tier 1) listing its nodes, spine-S (tier 2) listing its racks,
  // and with `top`, top (tier 3) listing the spines.
  std::vector<api::HyperNodeSpec> HyperNodes() const;
  // The narrowest domain holding every one of `nodes` (kRack if none).
  Span SpanOf(const std::vector<std::string>& nodes) const;
  double Factor(Span span) const;
  // The racks on none of whose nodes a pod runs.
  int WholeRacks(const std::set<std::string>& busy_nodes) const;

 private:
  NetworkSpec spec_;
  std::vector<std::vector<std::string>> rack_nodes_;  // by rack
  std::map<std::string, int> rack_of_;                // node -> rack
};

// summary.json's "network" block (README "Simulator"): the slowdown jobs
// got, how many racks arriving jobs found whole, and utilization until
// the last job ended, held and effective (held discounted by the slowdown
// of the job holding it).
nlohmann::ordered_json NetworkSummary(const Network& net, bool constraints,
                                      const std::vector<JobOutcome>& jobs,
                                      const std::vector<Sample>& series,
                                      const std::vector<int>& whole_at_arrival,
                                      int64_t makespan);

}  // namespace shoal::sim

#endif  // SHOAL_TOOLS_SIMULATOR_NETWORK_H_
