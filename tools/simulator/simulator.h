// Runs the real scheduler core (cache, session, actions, plugins, policy)
// over a simulated cluster and clock. The simulator only plays the world:
// workloads arrive, bound pods start at once, evicted pods are recreated
// by their controllers, jobs make progress and finish. Every decision is
// the scheduler's.
#ifndef SHOAL_TOOLS_SIMULATOR_SIMULATOR_H_
#define SHOAL_TOOLS_SIMULATOR_SIMULATOR_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "scheduler/api/devices.h"
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
  // PodGroups carry no networkTopology, whatever the scenario says: the
  // same jobs as a scheduler blind to the network would see them. The
  // network itself (HyperNodes, slowdown) stays.
  bool ignore_network_constraints = false;
  // Every Job workload's resize cost, whatever the scenario says (and
  // written on its PodGroups): runs one scenario at several costs.
  std::optional<absl::Duration> resize_cost;
  // GPUs (gpus.h) published neither shared nor partitioned, and partition
  // asks made whole: the same pods on GPUs that are not shared.
  bool no_gpu_sharing = false;
  // For tests: the world's ResourceClaims (by ns/name) after each cycle's
  // decisions were applied.
  std::function<void(const std::map<std::string, api::ResourceClaim>&)>
      observe_claims;
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
  // With a network (scenario.h, NetworkSpec); else -1 and empty.
  int racks_whole = -1;  // racks none of whose nodes runs a pod
  // By resource: utilization with each job's pods counted at 1 / its
  // slowdown factor, and not at all while its minimum does not run.
  std::map<std::string, double> effective_utilization;
  // With GPUs (gpus.h, GpuUse); else -1.
  double gpu_memory_allocated = -1;
  double gpu_memory_asked = -1;
  double gpus_busy = -1;
};

// One Job workload's PodGroup, at the end of the run (-1: never).
struct JobOutcome {
  std::string name;
  std::string workload;
  int64_t arrival = 0;
  int64_t started = -1;   // first second its minimum ran
  int64_t finished = -1;  // the second it was done
  int pods = 0;           // running when it started
  std::string span;       // with a network: rack, spine or cluster
  double factor = 1;      // its slowdown factor (1 without a network)
  // Changes of its running pod count after it started (a restart after
  // falling below its minimum is one), and the seconds its minimum ran
  // without progress because it was restarting.
  int resizes = 0;
  double restart_seconds = 0;
};

// A trace job (trace.h), at the end of the run (-1: never).
struct TraceOutcome {
  std::string name;
  std::string application;
  int num_replicas = 0;
  int batch_size = 0;
  int pods = 0;   // its PodGroup's
  int nodes = 0;  // its running pods spanned when it first ran
  int64_t arrival = 0;
  int64_t started = -1;
  int64_t finished = -1;
  int restarts = 0;  // reallocations after its first start (the artifact's)
  double gpu_seconds = 0;  // held, restarts included
};

struct Result {
  nlohmann::ordered_json summary;  // the keys of summary.json, in order
  std::vector<Sample> series;
  std::vector<JobOutcome> jobs;  // in order of arrival
  // The longest any service pod waited for a node, in seconds (pods still
  // waiting at the end count until then).
  int64_t max_service_wait_seconds = 0;
  // With GPUs: the slices published and the claims at the end.
  std::vector<api::ResourceSlice> gpu_slices;
  std::vector<api::ResourceClaim> gpu_claims;
  std::vector<TraceOutcome> trace_jobs;  // with a trace, in its order
};

Result Simulate(const Scenario& scenario, framework::Policy& policy,
                const Options& options);

// timeseries.csv: one row per simulated second.
std::string SeriesCsv(const std::vector<Sample>& series);
// jobs.csv: one row per job.
std::string JobsCsv(const std::vector<JobOutcome>& jobs);
// trace-jobs.csv: one row per trace job.
std::string TraceJobsCsv(const std::vector<TraceOutcome>& jobs);

}  // namespace shoal::sim

#endif  // SHOAL_TOOLS_SIMULATOR_SIMULATOR_H_
