// A simulator scenario (README "Simulator" has the format): a cluster,
// queues, and workloads that arrive over simulated time.
#ifndef SHOAL_TOOLS_SIMULATOR_SCENARIO_H_
#define SHOAL_TOOLS_SIMULATOR_SCENARIO_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "scheduler/api/network_topology.h"
#include "scheduler/api/node_info.h"
#include "scheduler/api/priority_class.h"
#include "scheduler/api/queue_info.h"

namespace shoal::sim {

namespace pollux {
class Application;
}  // namespace pollux

// GPUs of every node of a pool, published through DRA (resource.k8s.io)
// by a driver (gpus.h): each a device of `memory`; with `share`, one that
// allows multiple allocations (claims share it while their memory asks
// fit); with `partitions`, offered whole and as that many partitions of
// memory / partitions each, through one counter set per GPU.
struct GpuSpec {
  int count = 0;  // 0: the pool has none
  std::string memory = "80Gi";
  int64_t memory_bytes = int64_t{80} << 30;
  bool share = false;
  int partitions = 0;  // 0: not partitioned
};

struct NodePool {
  std::string prefix;
  int count = 0;
  api::Resource allocatable;
  api::Labels labels;
  std::vector<api::Taint> taints;
  GpuSpec gpus;
};

// What each pod of a task asks of the GPUs, through one ResourceClaim of
// its own: `count` whole GPUs, `count` partitions, or a share of one GPU's
// memory (`memory`, on a GPU that allows sharing; a GPU that does not is
// given whole, if its memory is enough).
struct GpuAsk {
  enum class Kind { kNone, kWhole, kPartition, kShare };
  Kind kind = Kind::kNone;
  int count = 1;
  std::string memory;  // kShare
};

struct TaskSpec {
  std::string name;
  int replicas = 0;
  int min = 0;
  api::Resource requests;  // one "pods" included
  GpuAsk gpu;
};

// `count` PodGroups NAME-0, NAME-1, ... arriving `every` apart from `start`,
// or, with `poisson`, at gaps drawn from an exponential distribution of
// mean `every` (the first gap counted from `start`, each rounded down to
// whole seconds) from the scenario's seed, so a run can be repeated.
struct JobWorkload {
  std::string name;
  int count = 1;
  absl::Duration start;
  absl::Duration every;
  bool poisson = false;
  std::vector<absl::Duration> arrivals;  // of NAME-0, NAME-1, ..., ascending
  std::string queue = "default";
  std::string priority_class;
  std::vector<TaskSpec> tasks;
  std::string work_task;   // empty: the job runs to the end
  double pod_seconds = 0;  // done when running `work_task` pods accumulate this
  // The PodGroups' spec.networkTopology (none by default).
  api::NetworkConstraint network;
  // What one change of a running job's pod count costs it (a trainer
  // restarting its worker group from a checkpoint): that many seconds
  // without progress. Written on the PodGroups as Shoal's annotation
  // shoal.dev/resize-cost-seconds when `resize_cost_given`.
  absl::Duration resize_cost;
  bool resize_cost_given = false;
  // A job of a trace (trace.h; count 1): its PodGroup is named `job_name`
  // rather than NAME-0, it arrives at the trace's second (its arrival, for
  // its completion time, is that second, not the cycle that sees it), and
  // it progresses as pollux::JobModel of `app` at the global batch size
  // `batch_size` says on the GPUs its running pods hold, instead of by
  // pod-seconds. `throughput` goes on its PodGroup (JobInfo::throughput).
  std::string job_name;
  const pollux::Application* app = nullptr;
  int batch_size = 0;
  int num_replicas = 0;  // what the trace asks (rigid size)
  std::vector<std::pair<int32_t, double>> throughput;
  // Its trainer writes its progress on its PodGroup every period
  // (shoal.dev/progress: the iterations it trained so far), from which the
  // elastic plugin learns its curve.
  bool reports_progress = false;
};

// Plain pods (no gang), as a Deployment's replica count changes over time.
struct ServiceWorkload {
  std::string name;
  std::string priority_class;
  api::Resource requests;
  std::vector<std::pair<absl::Duration, int>> replicas;  // (at, count), by time
};

// Racks (tier 1) under spines (tier 2), and optionally one HyperNode of
// tier 3 over every spine, written into the cache as Volcano's HyperNode
// objects would be. The cluster's nodes, in the order the pools list
// them, fill rack-0 first, then rack-1, ...; rack k is under spine
// k / racks_per_spine. There must be exactly as many nodes as the racks
// hold, so that the whole cluster is in the network.
struct NetworkSpec {
  int spines = 0;  // 0: the scenario describes no network
  int racks_per_spine = 0;
  int nodes_per_rack = 0;
  bool top = false;
  // The slowdown model: a job's run time is its base time (pod-seconds of
  // work over its running pods) times the factor of the narrowest domain
  // that holds all its pods when it starts: one rack, one spine, or wider.
  // The factor is fixed then; a job that later grows past that domain
  // keeps it (the scenarios' jobs are rigid gangs, which do not grow).
  double rack = 1;
  double spine = 1;
  double cluster = 1;
  int racks() const { return spines * racks_per_spine; }
};

struct Scenario {
  std::string file;
  absl::Duration duration;
  absl::Duration period = absl::Seconds(1);
  std::string policy;  // path, as written
  std::vector<api::PriorityClass> priority_classes;
  std::vector<NodePool> pools;
  NetworkSpec network;
  uint64_t seed = 1;  // for `poisson` arrivals
  std::vector<api::QueueInfo> queues;
  std::vector<JobWorkload> jobs;
  std::vector<ServiceWorkload> services;
  // `stopWhenDone: true`: the run ends at the end of the first period in
  // which every job has arrived and finished (`duration` the cap).
  bool stop_when_done = false;
};

// Refusals read "FILE:LINE: workloads[1].tasks[0].replicas: must be ...".
absl::StatusOr<Scenario> ParseScenario(const std::string& yaml,
                                       const std::string& file);
absl::StatusOr<Scenario> LoadScenario(const std::string& path);

}  // namespace shoal::sim

#endif  // SHOAL_TOOLS_SIMULATOR_SCENARIO_H_
