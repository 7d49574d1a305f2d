// One full scheduling cycle (cache snapshot, session open, enqueue,
// allocate, backfill, close) on 5,000 nodes and 50,000 pending pods in
// 1,000 gangs of 50, with the default policy.
//
//   bazel run //tools/bench:allocate_bench -- --benchmark_repetitions=5
#include <string>

#include "benchmark/benchmark.h"
#include "plugins/builtin.h"
#include "policies/default_policy.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/framework/cycle.h"
#include "tools/bench/peak_rss.h"
#include "tools/bench/synthetic_cluster.h"

namespace shoal::bench {
namespace {


void BM_AllocateCycle(benchmark::State& state) {
  SyntheticClusterSpec spec;
  spec.nodes = static_cast<int>(state.range(0));
  spec.gangs = static_cast<int>(state.range(1));
  cache::Cache cache("shoal");
  BuildSyntheticCluster(spec, cache);
  auto config = framework::ParseSchedulerConfig(policies::kDefaultPolicy, "default.yaml");
  auto policy = framework::BuildPolicy(*config, plugins::BuiltinPlugins(),
                                       actions::BuiltinActions());
  size_t binds = 0;
  for (auto _ : state) {
    framework::CycleOutcome out = framework::RunCycle(cache.Snapshot(), *policy);
    binds = out.binds.size();
    benchmark::DoNotOptimize(out);
  }
  state.counters["pods_bound"] = static_cast<double>(binds);
  state.counters["peak_rss_MiB"] = PeakRssMib();
}

BENCHMARK(BM_AllocateCycle)
    ->Args({5000, 1000})  // the target: 5,000 nodes, 50,000 pods
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace shoal::bench
