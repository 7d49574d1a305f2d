#include "tools/simulator/job_run.h"

#include <algorithm>

#include "tools/simulator/report.h"

namespace shoal::sim {

std::vector<JobOutcome> JobOutcomes(const std::vector<JobRun>& jobs,
                                    bool network) {
  std::vector<JobOutcome> out;
  for (const auto& job : jobs) {
    out.push_back({job.name, job.spec->name, job.arrival, job.started,
                   job.finished, job.pods_at_start,
                   !network || job.started < 0 ? "" : SpanName(job.span),
                   job.factor, job.resizes, job.restart_seconds});
  }
  return out;
}

std::vector<TraceOutcome> TraceOutcomes(const std::vector<JobRun>& jobs) {
  std::vector<TraceOutcome> out;
  for (const auto& job : jobs) {
    if (!job.model.has_value()) continue;
    int pods = 0;
    for (const auto& t : job.spec->tasks) pods += t.replicas;
    out.push_back({job.name, job.spec->name, job.spec->num_replicas,
                   job.spec->batch_size, pods, job.nodes_at_start, job.arrival,
                   job.started, job.finished,
                   std::max(job.model->num_restarts(), 0),
                   job.model->attained_service()});
  }
  return out;
}

std::vector<QueueJob> QueueJobs(const std::vector<JobRun>& jobs) {
  std::vector<QueueJob> out;
  for (const auto& job : jobs) {
    out.push_back({job.spec->queue, job.arrival, job.started, job.finished});
  }
  return out;
}

nlohmann::ordered_json UtilizationSummary(
    const std::map<std::string, std::vector<double>>& samples) {
  nlohmann::ordered_json util = nlohmann::ordered_json::object();
  for (const auto& [name, values] : samples) {
    double mean = 0;
    for (double u : values) mean += u;
    mean = values.empty() ? 0 : mean / values.size();
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    const double p05 =
        sorted.empty()
            ? 0
            : sorted[static_cast<size_t>(0.05 * (sorted.size() - 1))];
    util[name] = {{"mean", Round(mean)}, {"p05", Round(p05)}};
  }
  return util;
}

}  // namespace shoal::sim
