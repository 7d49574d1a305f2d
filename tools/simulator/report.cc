#include "tools/simulator/report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "tools/simulator/simulator.h"

namespace shoal::sim {

double Round(double x) { return std::round(x * 10000) / 10000; }

double NearestRank(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(std::ceil(p * sorted.size()));
  return sorted[std::max<size_t>(rank, 1) - 1];
}

int64_t Makespan(const std::vector<JobOutcome>& jobs, int64_t end) {
  int64_t last = 0;
  for (const auto& job : jobs) {
    if (job.finished < 0) return end;
    last = std::max(last, job.finished);
  }
  return last;
}

nlohmann::ordered_json JobsSummary(const std::vector<JobOutcome>& jobs,
                                   int64_t end) {
  double wait = 0, wait_max = 0;
  std::vector<double> jct;
  for (const auto& job : jobs) {
    if (job.finished >= 0) jct.push_back(job.finished - job.arrival);
    // A job that never started has waited until the end (at least).
    double w = (job.started >= 0 ? job.started : end) - job.arrival;
    wait += w;
    wait_max = std::max(wait_max, w);
  }
  std::sort(jct.begin(), jct.end());
  double sum = 0;
  for (double x : jct) sum += x;
  return {{"submitted", static_cast<int>(jobs.size())},
          {"completed", static_cast<int>(jct.size())},
          {"jctMeanSeconds", Round(jct.empty() ? 0 : sum / jct.size())},
          {"jctP95Seconds", Round(NearestRank(jct, 0.95))},
          {"waitMeanSeconds", Round(jobs.empty() ? 0 : wait / jobs.size())},
          {"waitMaxSeconds", Round(wait_max)},
          {"makespanSeconds", Makespan(jobs, end)}};
}

nlohmann::ordered_json WorkloadsSummary(const std::vector<JobOutcome>& jobs,
                                        int64_t end) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<double>> waits;
  std::map<std::string, int> completed;
  for (const auto& job : jobs) {
    if (waits.count(job.workload) == 0) order.push_back(job.workload);
    waits[job.workload].push_back((job.started >= 0 ? job.started : end) -
                                  job.arrival);
    completed[job.workload] += job.finished >= 0;
  }
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const std::string& w : order) {
    std::vector<double>& v = waits[w];
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (double x : v) sum += x;
    out[w] = {{"submitted", static_cast<int>(v.size())},
              {"completed", completed[w]},
              {"waitMeanSeconds", Round(sum / v.size())},
              {"waitMedianSeconds", Round(NearestRank(v, 0.5))},
              {"waitP90Seconds", Round(NearestRank(v, 0.9))},
              {"waitP95Seconds", Round(NearestRank(v, 0.95))},
              {"waitMaxSeconds", Round(v.back())}};
  }
  return out;
}

nlohmann::ordered_json ResizesSummary(const std::vector<JobOutcome>& jobs) {
  int total = 0, most = 0;
  double lost = 0;
  for (const auto& job : jobs) {
    total += job.resizes;
    most = std::max(most, job.resizes);
    lost += job.restart_seconds;
  }
  return {{"count", total},
          {"perJobMax", most},
          {"perJobMean", Round(jobs.empty() ? 0 : double(total) / jobs.size())},
          {"restartSecondsLost", Round(lost)}};
}

std::string SeriesCsv(const std::vector<Sample>& series) {
  if (series.empty()) return "";
  std::set<std::string> workloads, queues;
  for (const auto& s : series) {
    for (const auto& [w, n] : s.running_pods) workloads.insert(w);
    for (const auto& [q, share] : s.queue_share) queues.insert(q);
  }
  std::vector<std::string> header = {"second"};
  for (const auto& [r, u] : series.front().utilization)
    header.push_back("util_" + r);
  for (const char* c : {"pending_jobs", "running_jobs", "jain", "evictions"})
    header.push_back(c);
  for (const auto& w : workloads) header.push_back("pods_" + w);
  for (const auto& q : queues) header.push_back("queue_" + q);
  // Only with a network, so other scenarios' files stay as they were.
  const bool network = series.front().racks_whole >= 0;
  if (network) {
    header.push_back("racks_whole");
    for (const auto& [r, u] : series.front().effective_utilization)
      header.push_back("effective_" + r);
  }
  // Only with GPUs, likewise.
  const bool gpus = series.front().gpus_busy >= 0;
  if (gpus) {
    for (const char* c :
         {"gpu_memory_allocated", "gpu_memory_asked", "gpus_busy"})
      header.push_back(c);
  }
  std::string out = absl::StrJoin(header, ",") + "\n";
  for (const auto& s : series) {
    std::vector<std::string> row = {absl::StrCat(s.second)};
    for (const auto& [r, u] : s.utilization)
      row.push_back(absl::StrFormat("%.4f", u));
    row.push_back(absl::StrCat(s.pending_jobs));
    row.push_back(absl::StrCat(s.running_jobs));
    row.push_back(s.jain < 0 ? "" : absl::StrFormat("%.4f", s.jain));
    row.push_back(absl::StrCat(s.evictions));
    for (const auto& w : workloads) {
      auto it = s.running_pods.find(w);
      row.push_back(absl::StrCat(it == s.running_pods.end() ? 0 : it->second));
    }
    for (const auto& q : queues) {
      auto it = s.queue_share.find(q);
      row.push_back(absl::StrFormat(
          "%.4f", it == s.queue_share.end() ? 0.0 : it->second));
    }
    if (network) {
      row.push_back(absl::StrCat(s.racks_whole));
      for (const auto& [r, u] : s.effective_utilization)
        row.push_back(absl::StrFormat("%.4f", u));
    }
    if (gpus) {
      for (double u : {s.gpu_memory_allocated, s.gpu_memory_asked, s.gpus_busy})
        row.push_back(absl::StrFormat("%.4f", u));
    }
    out += absl::StrJoin(row, ",") + "\n";
  }
  return out;
}

std::string JobsCsv(const std::vector<JobOutcome>& jobs) {
  std::string out =
      "name,workload,arrival,started,finished,jct,pods,span,factor,resizes,"
      "restart_seconds\n";
  for (const auto& j : jobs) {
    out += absl::StrCat(
        j.name, ",", j.workload, ",", j.arrival, ",", j.started, ",",
        j.finished, ",",
        j.finished >= 0 ? absl::StrCat(j.finished - j.arrival) : "", ",",
        j.pods, ",", j.span, ",", absl::StrFormat("%.4g", j.factor), ",",
        j.resizes, ",", absl::StrFormat("%.0f", j.restart_seconds), "\n");
  }
  return out;
}

nlohmann::ordered_json TraceSummary(const std::vector<TraceOutcome>& jobs) {
  int completed = 0;
  double restarts = 0, gpu_seconds = 0;
  for (const auto& job : jobs) {
    if (job.finished < 0) continue;
    ++completed;
    restarts += job.restarts;
    gpu_seconds += job.gpu_seconds;
  }
  return {{"jobs", static_cast<int>(jobs.size())},
          {"completed", completed},
          {"restartsPerJob", Round(completed ? restarts / completed : 0)},
          {"gpuSecondsPerJob", Round(completed ? gpu_seconds / completed : 0)}};
}

std::string TraceJobsCsv(const std::vector<TraceOutcome>& jobs) {
  std::string out =
      "name,application,num_replicas,batch_size,pods,nodes,arrival,start,"
      "finish,jct,restarts,gpu_seconds\n";
  for (const auto& j : jobs) {
    out += absl::StrCat(
        j.name, ",", j.application, ",", j.num_replicas, ",", j.batch_size, ",",
        j.pods, ",", j.nodes, ",", j.arrival, ",", j.started, ",", j.finished,
        ",", j.finished >= 0 ? absl::StrCat(j.finished - j.arrival) : "", ",",
        j.restarts, ",", absl::StrFormat("%.0f", j.gpu_seconds), "\n");
  }
  return out;
}

}  // namespace shoal::sim
