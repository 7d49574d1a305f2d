// A simulator scenario (README "Simulator" has the format): a cluster,
// queues, and workloads that arrive over simulated time.
#ifndef SHOAL_TOOLS_SIMULATOR_SCENARIO_H_
#define SHOAL_TOOLS_SIMULATOR_SCENARIO_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "scheduler/api/node_info.h"
#include "scheduler/api/priority_class.h"
#include "scheduler/api/queue_info.h"

namespace shoal::sim {

struct NodePool {
  std::string prefix;
  int count = 0;
  api::Resource allocatable;
  api::Labels labels;
  std::vector<api::Taint> taints;
};

struct TaskSpec {
  std::string name;
  int replicas = 0;
  int min = 0;
  api::Resource requests;  // one "pods" included
};

// `count` PodGroups NAME-0, NAME-1, ... arriving `every` apart from `start`.
struct JobWorkload {
  std::string name;
  int count = 1;
  absl::Duration start;
  absl::Duration every;
  std::string queue = "default";
  std::string priority_class;
  std::vector<TaskSpec> tasks;
  std::string work_task;   // empty: the job runs to the end
  double pod_seconds = 0;  // done when running `work_task` pods accumulate this
};

// Plain pods (no gang), as a Deployment's replica count changes over time.
struct ServiceWorkload {
  std::string name;
  std::string priority_class;
  api::Resource requests;
  std::vector<std::pair<absl::Duration, int>> replicas;  // (at, count), by time
};

struct Scenario {
  std::string file;
  absl::Duration duration;
  absl::Duration period = absl::Seconds(1);
  std::string policy;  // path, as written
  std::vector<api::PriorityClass> priority_classes;
  std::vector<NodePool> pools;
  std::vector<api::QueueInfo> queues;
  std::vector<JobWorkload> jobs;
  std::vector<ServiceWorkload> services;
};

// Refusals read "FILE:LINE: workloads[1].tasks[0].replicas: must be ...".
absl::StatusOr<Scenario> ParseScenario(const std::string& yaml,
                                       const std::string& file);
absl::StatusOr<Scenario> LoadScenario(const std::string& path);

}  // namespace shoal::sim

#endif  // SHOAL_TOOLS_SIMULATOR_SCENARIO_H_
