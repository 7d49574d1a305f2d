// One scheduling cycle of Kubernetes' CompositePodGroup trees (KEP-6012,
// scheduler/cache/composite_jobs.h):
//
//   bazel run -c opt //tools/bench:composite_tree_bench --
//   --benchmark_repetitions=5
//
// (from the repository root when started without bazel run: the policy is
// read from policies/default.yaml.)
//
// The cluster: 5,000 nodes of 64 cpu and 256Gi, and 1,000 pending
// three-level trees: a root (minGroupCount 2) over 4 composites
// (minGroupCount 2 each) over 4 leaf PodGroups of 8 pods (minCount 8) of
// 2 cpu and 8Gi: 128,000 pods, 256,000 cpu of the cluster's 320,000, so
// every tree fits whole.
//
// BM_CompositeTreeCycle/rack adds a topology key on every root: the tree
// inside one rack (50 racks of 100 nodes, label topology.example.com/rack),
// a rack holding 25 trees.
//
// Counters: binds of the cycle; leaves bound partly (leaves_split, must
// be 0); roots whose pods span racks under the key (trees_across_racks,
// must be 0).
#include <map>
#include <memory>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "plugins/builtin.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/cache/cache.h"
#include "scheduler/framework/cycle.h"
#include "tools/bench/peak_rss.h"
#include "tools/bench/synthetic_cluster.h"

namespace shoal::bench {
namespace {

constexpr int kNodes = 5000, kNodesPerRack = 100, kTrees = 1000;
constexpr int kComposites = 4, kLeaves = 4, kLeafPods = 8;
constexpr char kRackKey[] = "topology.example.com/rack";

void BuildCluster(bool rack_key, cache::Cache& cache) {
  const api::Resource allocatable = *api::Resource::FromList(
      {{"cpu", "64"}, {"memory", "256Gi"}, {"pods", "110"}}, "bench");
  for (int i = 0; i < kNodes; ++i) {
    auto node = std::make_shared<api::NodeSpec>();
    node->name = absl::StrCat("node-", i);
    node->labels =
        api::Labels({{"kubernetes.io/hostname", node->name},
                     {kRackKey, absl::StrCat("rack-", i / kNodesPerRack)}});
    node->allocatable = allocatable;
    cache.UpsertNode(std::move(node));
  }
  const absl::Time start = absl::FromUnixSeconds(1700000000);
  const api::Resource pod = *api::Resource::FromList(
      {{"cpu", "2"}, {"memory", "8Gi"}, {"pods", "1"}}, "bench");
  for (int t = 0; t < kTrees; ++t) {
    api::CompositePodGroupSpec root;
    root.ns = "default";
    root.name = absl::StrCat("tree-", t);
    root.uid = "uid-" + root.name;
    root.created = start + absl::Seconds(t);
    root.gang = true;
    root.min_group_count = 2;
    if (rack_key) {
      root.network.mode = api::NetworkConstraint::Mode::kHard;
      root.network.highest_tier_name = kRackKey;
      root.network.topology_key = true;
    }
    cache.UpsertCompositePodGroup(root);
    for (int c = 0; c < kComposites; ++c) {
      api::CompositePodGroupSpec mid = root;
      mid.name = absl::StrCat(root.name, "-c", c);
      mid.uid = "uid-" + mid.name;
      mid.parent = root.name;
      mid.network = api::NetworkConstraint();
      cache.UpsertCompositePodGroup(mid);
      for (int l = 0; l < kLeaves; ++l) {
        UniformJob leaf{"default", absl::StrCat(mid.name, "-l", l),
                        kLeafPods, kLeafPods,
                        pod,       root.created};
        leaf.parent_group = mid.name;
        AddUniformJob(
            leaf, [](int) { return std::string(); }, cache);
      }
    }
  }
}

void BM_CompositeTreeCycle(benchmark::State& state, bool rack_key) {
  auto config = framework::LoadSchedulerConfig("policies/default.yaml");
  if (!config.ok()) {
    state.SkipWithError(
        "policies/default.yaml not found: run from the repository root");
    return;
  }
  auto policy = framework::BuildPolicy(*config, plugins::BuiltinPlugins(),
                                       actions::BuiltinActions());
  if (!policy.ok()) {
    state.SkipWithError(std::string(policy.status().message()).c_str());
    return;
  }
  cache::Cache cache("shoal");
  BuildCluster(rack_key, cache);
  // The cache builds its first model once, when the informers' lists have
  // arrived (snapshot_bench times one built from scratch); a cycle takes
  // the snapshot of a model already built, as every cycle after the first
  // does.
  benchmark::DoNotOptimize(cache.Snapshot());
  size_t binds = 0, split = 0, across = 0;
  for (auto _ : state) {
    framework::CycleOutcome out =
        framework::RunCycle(cache.Snapshot(), *policy);
    state.PauseTiming();
    binds = out.binds.size();
    // Pods bound per leaf (a leaf is whole or untouched), racks per tree.
    std::map<std::string, int> per_leaf;
    std::map<api::JobIndex, std::set<int>> racks;
    for (const auto& b : out.binds) {
      const api::TaskInfo& t = out.cluster.tasks[b.task];
      ++per_leaf[t.pod->group];
      const std::string& node = out.cluster.nodes[b.node].name();
      racks[t.job].insert(std::stoi(node.substr(5)) / kNodesPerRack);
    }
    split = 0;
    for (const auto& [leaf, n] : per_leaf) split += n != kLeafPods;
    across = 0;
    if (rack_key) {
      for (const auto& [job, in] : racks) across += in.size() > 1;
    }
    benchmark::DoNotOptimize(out);
    state.ResumeTiming();
  }
  if (binds == 0) state.SkipWithError("the cycle bound nothing");
  state.counters["binds"] = static_cast<double>(binds);
  state.counters["leaves_split"] = static_cast<double>(split);
  state.counters["trees_across_racks"] = static_cast<double>(across);
  state.counters["peak_rss_MiB"] = PeakRssMib();
}
BENCHMARK_CAPTURE(BM_CompositeTreeCycle, plain, false)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_CompositeTreeCycle, rack, true)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace shoal::bench
