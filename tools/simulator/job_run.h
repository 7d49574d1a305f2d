// What the simulator keeps of each job it runs (one instance of a Job
// workload: PodGroup NAME-k), and what a run's jobs came to: the rows of
// summary.json's jobs, trace and queues, and its utilization figures.
#ifndef SHOAL_TOOLS_SIMULATOR_JOB_RUN_H_
#define SHOAL_TOOLS_SIMULATOR_JOB_RUN_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nlohmann/json.hpp"
#include "scheduler/api/job_info.h"
#include "tools/simulator/network.h"
#include "tools/simulator/pollux/job_model.h"
#include "tools/simulator/queue_standing.h"
#include "tools/simulator/scenario.h"
#include "tools/simulator/simulator.h"

namespace shoal::sim {

// One instance of a Job workload: PodGroup NAME-k.
struct JobRun {
  const JobWorkload* spec = nullptr;
  std::string name;
  int64_t arrival = 0;   // second
  int64_t started = -1;  // first second its minimum ran
  int64_t finished = -1;
  double work = 0;                     // pod-seconds of spec->work_task
  std::map<std::string, int> running;  // per task, this second
  // How far its pods were spread when it started, and so how much slower
  // it runs (network.h); fixed at the start.
  Span span = Span::kRack;
  double factor = 1;
  int pods_at_start = 0;
  // Resizes (scenario.h, resize_cost): the pods it ran the last second its
  // minimum did, whether it fell below its minimum since, the second its
  // restart ends (no progress before), and what they cost it.
  int64_t resize_cost = 0;  // seconds
  int members = 0;
  bool interrupted = false;
  int64_t restart_until = -1;
  int resizes = 0;
  double restart_seconds = 0;
  // A trace job (JobWorkload::app): its model, the GPUs its running pods
  // held on each node when it was last (re)allocated, and whether one of
  // its running pods was evicted since.
  std::optional<pollux::JobModel> model;
  std::vector<std::pair<std::string, int>> placed;
  bool disturbed = false;
  int nodes_at_start = 0;  // nodes its pods spanned when it first ran
  // Its PodGroup as the source last wrote it (the phase as the status
  // writes left it), for a trace job whose trainer reports its progress.
  api::JobInfo group;
};

// Each job's outcome, in order of arrival; `network`: whether the run
// models the network (a job's span is said only then).
std::vector<JobOutcome> JobOutcomes(const std::vector<JobRun>& jobs,
                                    bool network);
// The trace jobs' outcomes (JobWorkload::app), in order of arrival.
std::vector<TraceOutcome> TraceOutcomes(const std::vector<JobRun>& jobs);
// Each job's queue and times, for QueueStanding::Summary.
std::vector<QueueJob> QueueJobs(const std::vector<JobRun>& jobs);
// summary.json's utilization: per resource, the mean and the 5th
// percentile of the samples.
nlohmann::ordered_json UtilizationSummary(
    const std::map<std::string, std::vector<double>>& samples);

}  // namespace shoal::sim

#endif  // SHOAL_TOOLS_SIMULATOR_JOB_RUN_H_
