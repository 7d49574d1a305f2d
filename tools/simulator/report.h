// Helpers shared by the simulator's outputs (summary.json, the CSVs).
#ifndef SHOAL_TOOLS_SIMULATOR_REPORT_H_
#define SHOAL_TOOLS_SIMULATOR_REPORT_H_

#include <cstdint>
#include <vector>

#include "nlohmann/json.hpp"
#include "tools/simulator/simulator.h"

namespace shoal::sim {

// Four decimals: enough for a summary, and stable across runs.
double Round(double x);

// The p-th percentile of sorted values by nearest rank; 0 if none.
double NearestRank(const std::vector<double>& sorted, double p);

// The second the last job finished; `end` (the run's) if one never did.
int64_t Makespan(const std::vector<JobOutcome>& jobs, int64_t end);

// summary.json's "jobs": a run that ends at second `end`.
nlohmann::ordered_json JobsSummary(const std::vector<JobOutcome>& jobs,
                                   int64_t end);

// summary.json's "workloads": per Job workload, its jobs submitted and
// completed, and their wait for their minimum (mean; median, p90 and p95
// by nearest rank; a job that never started waits until `end`).
nlohmann::ordered_json WorkloadsSummary(const std::vector<JobOutcome>& jobs,
                                        int64_t end);

// summary.json's "resizes": changes of running jobs' pod counts, the most
// any one job made, and the seconds jobs spent restarting.
nlohmann::ordered_json ResizesSummary(const std::vector<JobOutcome>& jobs);

// summary.json's "trace" (with a trace): its jobs, those completed, and
// per completed job the mean restarts and GPU-seconds held.
nlohmann::ordered_json TraceSummary(const std::vector<TraceOutcome>& jobs);

}  // namespace shoal::sim

#endif  // SHOAL_TOOLS_SIMULATOR_REPORT_H_
