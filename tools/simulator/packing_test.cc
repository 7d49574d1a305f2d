// The shipped GPU packing scenarios with and without the action that
// makes their difference: consolidate in fragmented-gpus.yaml (whole-node
// jobs wait less, and pods are moved for them), preempt in
// gpu-priority-dra.yaml (high-priority gangs wait less, and low-priority
// pods holding DRA claims are evicted for them). Poisson arrivals from
// the scenarios' seeds: the same every run.
#include <string>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "plugins/builtin.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/framework/config.h"
#include "tools/simulator/simulator.h"

namespace shoal::sim {
namespace {

constexpr char kFragmented[] = "tools/simulator/scenarios/fragmented-gpus.yaml";
constexpr char kPriorityDra[] =
    "tools/simulator/scenarios/gpu-priority-dra.yaml";
constexpr char kBinpack[] = "policies/binpack.yaml";
constexpr char kGpuPacking[] = "policies/gpu-packing.yaml";

// The scenario's first `duration` (its arrivals are drawn as in the whole
// run; a job that has not started by the end waits until then).
Result Simulated(const std::string& scenario_path,
                 const std::string& policy_path, absl::Duration duration) {
  auto scenario = LoadScenario(scenario_path);
  EXPECT_TRUE(scenario.ok()) << scenario.status();
  scenario->duration = duration;
  auto config = framework::LoadSchedulerConfig(policy_path);
  EXPECT_TRUE(config.ok()) << config.status();
  auto policy = framework::BuildPolicy(*config, plugins::BuiltinPlugins(),
                                       actions::BuiltinActions());
  EXPECT_TRUE(policy.ok()) << policy.status();
  return Simulate(*scenario, *policy, Options());
}

double Wait(const Result& r, const std::string& workload,
            const std::string& stat) {
  return r.summary["workloads"][workload][stat].get<double>();
}

int64_t Evictions(const Result& r, const std::string& reason) {
  const auto& by = r.summary["evictionsByReason"];
  return by.contains(reason) ? by[reason].get<int64_t>() : 0;
}

TEST(FragmentedGpus, ConsolidateMovesPodsAndWholeNodeJobsWaitLess) {
  // Two of its five hours: ten whole-node jobs, fragmentation from the
  // first hour on.
  Result binpack = Simulated(kFragmented, kBinpack, absl::Hours(2));
  Result packing = Simulated(kFragmented, kGpuPacking, absl::Hours(2));
  EXPECT_EQ(Evictions(binpack, "consolidate"), 0);
  EXPECT_GT(Evictions(packing, "consolidate"), 0) << packing.summary.dump();
  // One priority: nothing preempted.
  EXPECT_EQ(Evictions(packing, "preempt"), 0);
  EXPECT_LT(Wait(packing, "whole-node", "waitMedianSeconds"),
            Wait(binpack, "whole-node", "waitMedianSeconds"))
      << binpack.summary["workloads"].dump() << "\n"
      << packing.summary["workloads"].dump();
  EXPECT_LT(Wait(packing, "whole-node", "waitP90Seconds"),
            Wait(binpack, "whole-node", "waitP90Seconds"));
  // Moved pods carry on: as much GPU work done as without moves.
  EXPECT_GE(
      packing.summary["utilization"]["nvidia.com/gpu"]["mean"].get<double>(),
      binpack.summary["utilization"]["nvidia.com/gpu"]["mean"].get<double>() -
          0.02);
}

TEST(GpuPriorityDra, PreemptCutsTheHighPriorityGangsWait) {
  // The first hour of three: five gangs.
  Result none = Simulated(kPriorityDra, kBinpack, absl::Hours(1));
  Result preempt = Simulated(kPriorityDra, kGpuPacking, absl::Hours(1));
  EXPECT_EQ(Evictions(none, "preempt"), 0);
  EXPECT_GT(Evictions(preempt, "preempt"), 0) << preempt.summary.dump();
  // Pods holding resource claims are never moved.
  EXPECT_EQ(Evictions(preempt, "consolidate"), 0);
  EXPECT_LT(Wait(preempt, "train-gang", "waitP90Seconds"),
            Wait(none, "train-gang", "waitP90Seconds"))
      << none.summary["workloads"].dump() << "\n"
      << preempt.summary["workloads"].dump();
  EXPECT_LE(Wait(preempt, "train-gang", "waitMedianSeconds"),
            Wait(none, "train-gang", "waitMedianSeconds"));
}

}  // namespace
}  // namespace shoal::sim
