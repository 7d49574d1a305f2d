// Trace mode of the simulator: the jobs of a workload of Pollux's
// benchmark (tools/simulator/traces/pollux-osdi21) as PodGroups, each
// progressing by the measured job model (pollux/job_model.h) on the GPUs
// its running pods hold. README "Simulator" (Trace mode).
#ifndef SHOAL_TOOLS_SIMULATOR_TRACE_H_
#define SHOAL_TOOLS_SIMULATOR_TRACE_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tools/simulator/pollux/application.h"
#include "tools/simulator/pollux/workload.h"
#include "tools/simulator/scenario.h"

namespace shoal::sim {

struct Trace {
  // By name; must outlive every simulation of a scenario it was added to.
  std::map<std::string, std::unique_ptr<pollux::Application>> apps;
  std::vector<pollux::WorkloadJob> jobs;
};

// Reads workload `workload_csv` and the applications its jobs use from
// `apps_dir` (one directory per application).
absl::StatusOr<std::unique_ptr<Trace>> LoadTrace(
    const std::string& workload_csv, const std::string& apps_dir);

// The pods of an elastic trace job: min(64, batch_size / its application's
// smallest local batch), at least 1; ncf 1 (as the artifact: ncf does not
// scale).
int ElasticPods(const pollux::WorkloadJob& job, const pollux::Application& app);

// The most pods an elastic trace job runs: kTuned, the num_replicas its
// user tuned it for (what an elastic job's owner would give as its most:
// torchrun's --nnodes=1:N), never more than ElasticPods; kBatch,
// ElasticPods (as wide as its batch splits). Parsed from "tuned" / "batch"
// (shoal-sim --trace-elastic-most), refused by name otherwise.
enum class ElasticMost { kTuned, kBatch };
absl::StatusOr<ElasticMost> ParseElasticMost(absl::string_view text);

// What the scheduler is told of each trace job's scaling: kDeclared, its
// curve as a shoal.dev/throughput annotation (what the model says);
// kLearned, nothing declared, its progress reported every period
// (shoal.dev/progress) for the elastic plugin to learn from; kBoth, the
// two. Parsed from "declared" / "learned" / "both" (shoal-sim
// --trace-curves), refused by name otherwise.
enum class TraceCurves { kDeclared, kLearned, kBoth };
absl::StatusOr<TraceCurves> ParseTraceCurves(absl::string_view text);

// Adds one Job workload per trace job to `sc`, in the trace's order, in
// queue "default": one task "worker" of pods of 1 nvidia.com/gpu, 1 cpu
// and 2Gi. Rigid: num_replicas pods, all the minimum; elastic: as `most`
// says, minimum 1. Each with its throughput curve (relative to one
// GPU, at 1, 2, 4, ... 64 GPUs up to its pods, and at its pods) and its
// resize cost (30 s, the model's per reallocation).
void AddTraceJobs(const Trace& trace, bool rigid, Scenario* sc,
                  ElasticMost most = ElasticMost::kTuned,
                  TraceCurves curves = TraceCurves::kDeclared);

}  // namespace shoal::sim

#endif  // SHOAL_TOOLS_SIMULATOR_TRACE_H_
