// Scheduling cycles with queues and every action (enqueue, allocate,
// backfill, reclaim, preempt) under policies/fair-share.yaml:
//
//   bazel run //tools/bench:fairness_bench -- --benchmark_repetitions=5
//
// * BM_TwentyQueues: the allocate benchmark's 5,000 nodes and 50,000
//   pending pods in 1,000 gangs of 50, spread over 20 queues.
// * BM_ReclaimHeavy: 5,000 nodes held entirely by 10 queues' elastic jobs
//   (20,000 running pods), while 10 other queues each wait with 5 gangs of
//   50; reclaim evicts to make room for them.
#include <fstream>
#include <sstream>
#include <string>

#include "benchmark/benchmark.h"
#include "plugins/builtin.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/framework/cycle.h"
#include "tools/bench/peak_rss.h"
#include "tools/bench/synthetic_cluster.h"

namespace shoal::bench {
namespace {

framework::Policy FairShare() {
  std::ifstream in("policies/fair-share.yaml");
  std::stringstream text;
  text << in.rdbuf();
  auto config =
      framework::ParseSchedulerConfig(text.str(), "policies/fair-share.yaml");
  if (!config.ok()) std::abort();
  auto policy = framework::BuildPolicy(*config, plugins::BuiltinPlugins(),
                                       actions::BuiltinActions());
  if (!policy.ok()) std::abort();
  return std::move(*policy);
}

void Run(benchmark::State& state, cache::Cache& cache) {
  framework::Policy policy = FairShare();
  size_t binds = 0, evictions = 0;
  for (auto _ : state) {
    framework::CycleOutcome out = framework::RunCycle(cache.Snapshot(), policy);
    binds = out.binds.size();
    evictions = out.evictions.size();
    benchmark::DoNotOptimize(out);
  }
  state.counters["pods_bound"] = static_cast<double>(binds);
  state.counters["evictions"] = static_cast<double>(evictions);
  state.counters["peak_rss_MiB"] = PeakRssMib();
}

void BM_TwentyQueues(benchmark::State& state) {
  SyntheticClusterSpec spec;
  spec.queues = 20;
  cache::Cache cache("shoal");
  BuildSyntheticCluster(spec, cache);
  Run(state, cache);
}
BENCHMARK(BM_TwentyQueues)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ReclaimHeavy(benchmark::State& state) {
  cache::Cache cache("shoal");
  BuildReclaimHeavyCluster(5000, 10, 10, cache);
  Run(state, cache);
}
BENCHMARK(BM_ReclaimHeavy)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace shoal::bench
