// Runs the real scheduler core (cache, session, actions, plugins, policy)
// over a simulated cluster and clock. The simulator only plays the world:
// workloads arrive, bound pods start at once, evicted pods are recreated
// by their controllers, jobs make progress and finish. Every decision is
// the scheduler's.
#ifndef SHOAL_TOOLS_SIMULATOR_SIMULATOR_H_
#define SHOAL_TOOLS_SIMULATOR_SIMULATOR_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "scheduler/framework/policy.h"
#include "tools/simulator/scenario.h"

namespace shoal::sim {

struct Options {
  // Every job's minimum is all its pods: what a scheduler without
  // elasticity must do.
  bool rigid = false;
  // Called with the fraction done, now and then.
  std::function<void(double)> progress;
  // See framework/partial_gang_release.h.
  int partial_gang_release_cycles = 30;
  // For tests: the pods (ns/name) whose binds the world refuses.
  std::function<bool(const std::string& pod)> bind_fails;
};

// One simulated second.
struct Sample {
  int64_t second = 0;
  std::map<std::string, double> utilization;  // by resource
  int pending_jobs = 0;
  int running_jobs = 0;
  double jain = -1;  // -1 while fewer than two elastic jobs run
  std::map<std::string, int> running_pods;  // by workload name
  int64_t evictions = 0;                    // so far
  // By queue: the dominant share of the cluster its running pods hold.
  std::map<std::string, double> queue_share;
};

struct Result {
  nlohmann::ordered_json summary;  // the keys of summary.json, in order
  std::vector<Sample> series;
  // The longest any service pod waited for a node, in seconds (pods still
  // waiting at the end count until then).
  int64_t max_service_wait_seconds = 0;
};

Result Simulate(const Scenario& scenario, framework::Policy& policy,
                const Options& options);

// timeseries.csv: one row per simulated second.
std::string SeriesCsv(const std::vector<Sample>& series);

}  // namespace shoal::sim

#endif  // SHOAL_TOOLS_SIMULATOR_SIMULATOR_H_
