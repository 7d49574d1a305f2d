#include "tools/simulator/trace.h"

#include <algorithm>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "scheduler/api/resource.h"
#include "tools/simulator/pollux/job_model.h"

namespace shoal::sim {

absl::StatusOr<std::unique_ptr<Trace>> LoadTrace(
    const std::string& workload_csv, const std::string& apps_dir) {
  auto trace = std::make_unique<Trace>();
  absl::StatusOr<std::vector<pollux::WorkloadJob>> jobs =
      pollux::ReadWorkload(workload_csv);
  if (!jobs.ok()) return jobs.status();
  trace->jobs = std::move(*jobs);
  for (const auto& job : trace->jobs) {
    if (trace->apps.count(job.application) != 0) continue;
    absl::StatusOr<pollux::Application> app =
        pollux::Application::LoadNamed(apps_dir, job.application);
    if (!app.ok()) return app.status();
    trace->apps[job.application] =
        std::make_unique<pollux::Application>(std::move(*app));
  }
  return trace;
}

int ElasticPods(const pollux::WorkloadJob& job,
                const pollux::Application& app) {
  if (job.application == "ncf") return 1;
  const int smallest = std::max(app.min_local_bsz(), 1);
  return std::clamp(job.batch_size / smallest, 1, 64);
}

absl::StatusOr<ElasticMost> ParseElasticMost(absl::string_view text) {
  if (text == "tuned") return ElasticMost::kTuned;
  if (text == "batch") return ElasticMost::kBatch;
  return absl::InvalidArgumentError(
      absl::StrCat("--trace-elastic-most=\"", text,
                   "\": must be tuned (each job's num_replicas) or batch "
                   "(batch_size / the smallest local batch, up to 64)"));
}

absl::StatusOr<TraceCurves> ParseTraceCurves(absl::string_view text) {
  if (text == "declared") return TraceCurves::kDeclared;
  if (text == "learned") return TraceCurves::kLearned;
  if (text == "both") return TraceCurves::kBoth;
  return absl::InvalidArgumentError(absl::StrCat(
      "--trace-curves=\"", text,
      "\": must be declared (shoal.dev/throughput from the model), learned "
      "(shoal.dev/progress reported, nothing declared) or both"));
}

void AddTraceJobs(const Trace& trace, bool rigid, Scenario* sc,
                  ElasticMost most, TraceCurves curves) {
  api::Resource request = *api::Resource::FromList(
      {{"cpu", "1"}, {"memory", "2Gi"}, {"nvidia.com/gpu", "1"}, {"pods", "1"}},
      "trace pod");
  for (const auto& row : trace.jobs) {
    const pollux::Application& app = *trace.apps.at(row.application);
    JobWorkload w;
    w.name = row.application;  // pods per application, in timeseries.csv
    w.job_name = row.name;
    w.count = 1;
    w.start = absl::Seconds(row.time);
    w.arrivals = {w.start};
    w.app = &app;
    w.batch_size = row.batch_size;
    w.num_replicas = row.num_replicas;
    // What the model charges each reallocation, told to the scheduler as
    // the PodGroup's shoal.dev/resize-cost-seconds.
    w.resize_cost = absl::Seconds(pollux::JobModel::kRescaleSeconds);
    w.resize_cost_given = true;
    TaskSpec task;
    task.name = "worker";
    if (rigid) {
      task.replicas = row.num_replicas;
    } else if (most == ElasticMost::kTuned) {
      task.replicas = std::min(row.num_replicas, ElasticPods(row, app));
    } else {
      task.replicas = ElasticPods(row, app);
    }
    task.min = rigid ? row.num_replicas : 1;
    task.requests = request;
    w.tasks.push_back(task);
    w.reports_progress = curves != TraceCurves::kDeclared;
    if (curves != TraceCurves::kLearned) {
      const pollux::JobModel model(&app, row.batch_size);
      for (int n = 1;; n *= 2) {
        const int at = std::min(n, task.replicas);
        w.throughput.emplace_back(at, model.RelativeThroughput(at));
        if (at == task.replicas || n >= 64) break;
      }
    }
    sc->jobs.push_back(std::move(w));
  }
}

}  // namespace shoal::sim
