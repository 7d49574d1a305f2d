// One full scheduling cycle (cache snapshot, session open, enqueue,
// allocate, backfill, close) on 5,000 nodes and 50,000 pending pods in
// 1,000 gangs of 50, with the default policy, and on four times that
// (BM_AllocateCycle; BM_AllocateCycleEveryNode scores every node, as
// before node sampling); the same with inter-pod rules and host ports on
// some gangs (BM_PlacementRulesCycle); what recording a cycle for
// Prometheus costs (BM_CycleMetrics), and the cache's snapshot alone
// (BM_CacheSnapshot).
//
//   bazel run //tools/bench:allocate_bench -- --benchmark_repetitions=5
#include <string>

#include "benchmark/benchmark.h"
#include "plugins/builtin.h"
#include "policies/default_policy.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/cycle_metrics.h"
#include "scheduler/framework/cycle.h"
#include "tools/bench/peak_rss.h"
#include "tools/bench/synthetic_cluster.h"

namespace shoal::bench {
namespace {

// Cycles over the cluster `spec` describes, with the default policy, and
// `extra` appended to it.
void RunCycles(benchmark::State& state, const SyntheticClusterSpec& spec,
               const std::string& extra = "") {
  cache::Cache cache("shoal");
  BuildSyntheticCluster(spec, cache);
  auto config = framework::ParseSchedulerConfig(
      std::string(policies::kDefaultPolicy) + extra, "default.yaml");
  auto policy = framework::BuildPolicy(*config, plugins::BuiltinPlugins(),
                                       actions::BuiltinActions());
  size_t binds = 0;
  for (auto _ : state) {
    framework::CycleOutcome out =
        framework::RunCycle(cache.Snapshot(), *policy);
    binds = out.binds.size();
    benchmark::DoNotOptimize(out);
  }
  state.counters["pods_bound"] = static_cast<double>(binds);
  state.counters["peak_rss_MiB"] = PeakRssMib();
}

void BM_AllocateCycle(benchmark::State& state) {
  SyntheticClusterSpec spec;
  spec.nodes = static_cast<int>(state.range(0));
  spec.gangs = static_cast<int>(state.range(1));
  RunCycles(state, spec);
}

BENCHMARK(BM_AllocateCycle)
    ->Args({5000, 1000})   // the target: 5,000 nodes, 50,000 pods
    ->Args({20000, 4000})  // four times larger, to see how the cycle grows
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The same with every node scored for every job (percentageOfNodesToScore:
// 100), as before node sampling: the cycle grows with jobs x nodes.
void BM_AllocateCycleEveryNode(benchmark::State& state) {
  SyntheticClusterSpec spec;
  spec.nodes = static_cast<int>(state.range(0));
  spec.gangs = static_cast<int>(state.range(1));
  RunCycles(state, spec, "\npercentageOfNodesToScore: 100\n");
}

BENCHMARK(BM_AllocateCycleEveryNode)
    ->Args({5000, 1000})
    ->Args({20000, 4000})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The same cluster where 20% of the gangs want one pod per node (required
// anti-affinity on the hostname), 20% spread over zones (DoNotSchedule,
// maxSkew 1) and 5% bind a host port.
void BM_PlacementRulesCycle(benchmark::State& state) {
  SyntheticClusterSpec spec;
  spec.anti_affinity_fraction = 0.2;
  spec.spread_fraction = 0.2;
  spec.host_port_fraction = 0.05;
  RunCycles(state, spec);
}

BENCHMARK(BM_PlacementRulesCycle)->Unit(benchmark::kMillisecond)->UseRealTime();

// What the loop adds to each cycle for Prometheus (RecordCycleMetrics):
// counting the binds, jobs and queues of BM_AllocateCycle's outcome. The
// rest of the metrics' cost (action and plugin timers) is inside the
// cycle benchmarks above.
void BM_CycleMetrics(benchmark::State& state) {
  cache::Cache cache("shoal");
  BuildSyntheticCluster(SyntheticClusterSpec(), cache);
  auto config =
      framework::ParseSchedulerConfig(policies::kDefaultPolicy, "default.yaml");
  auto policy = framework::BuildPolicy(*config, plugins::BuiltinPlugins(),
                                       actions::BuiltinActions());
  framework::CycleOutcome out = framework::RunCycle(cache.Snapshot(), *policy);
  AppliedCycle applied;
  for (const auto& b : out.binds) {
    applied.binds.push_back({b.task, out.cluster.tasks[b.task].pod->Key(),
                             out.cluster.nodes[b.node].name(), b.claims,
                             absl::OkStatus(), absl::Milliseconds(3)});
  }
  applied.cluster = std::move(out.cluster);
  for (auto _ : state) RecordCycleMetrics(applied, 0, absl::Now());
  state.counters["binds"] = static_cast<double>(applied.binds.size());
}
BENCHMARK(BM_CycleMetrics)->Unit(benchmark::kMillisecond)->UseRealTime();

// The picture a cycle starts from: the cache's Snapshot of the 5,000-node,
// 50,000-pod cluster, taken under the cache's lock (informers wait).
void BM_CacheSnapshot(benchmark::State& state) {
  cache::Cache cache("shoal");
  BuildSyntheticCluster(SyntheticClusterSpec(), cache);
  for (auto _ : state) benchmark::DoNotOptimize(cache.Snapshot());
}
BENCHMARK(BM_CacheSnapshot)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace shoal::bench
