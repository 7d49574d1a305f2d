// What a cycle's snapshot costs on a large cluster (5,000 nodes, 50,000
// pods; tools/bench/synthetic_cluster.h), by how much changed since the
// previous one: nothing, 1% of the pods, every pod. The cache derives
// only what changed (scheduler/cache/cache.h), so these differ; the
// copy every session gets of the cluster (BM_ClusterInfoCopy) is the
// floor none of them goes below.
//
// `lock_held_max_ms` is the longest a thread that takes the cache's lock
// in a loop meanwhile (as the informers do) waited for it: how long a
// snapshot keeps the watch from applying events.
//
//   bazel run -c opt //tools/bench:snapshot_bench -- \
//     --benchmark_repetitions=3
#include <algorithm>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "tools/bench/synthetic_cluster.h"

namespace shoal::bench {
namespace {

// The synthetic cluster's pods, as fed, so that a benchmark can change
// some of them between snapshots.
struct Cluster {
  cache::Cache cache{"shoal"};
  std::vector<std::shared_ptr<const api::PodInfo>> pods;
  std::vector<std::string> nodes;

  Cluster() {
    BuildSyntheticCluster(SyntheticClusterSpec(), cache);
    for (const auto& p : cache.Export().pods) pods.push_back(p.pod);
    for (const auto& n : cache.Export().nodes) nodes.push_back(n->name);
  }

  // Re-feeds `count` pods starting at `first` (wrapping around), each
  // bound to a node on odd rounds and pending again on even ones, as the
  // watch reports binds: every one is a real change.
  void Change(size_t first, size_t count, int round) {
    for (size_t i = 0; i < count; ++i) {
      size_t at = (first + i) % pods.size();
      auto pod = std::make_shared<api::PodInfo>(*pods[at]);
      if (round % 2 == 1) {
        pod->node_name = nodes[at % nodes.size()];
        pod->status = api::TaskStatus::kBound;
      }
      cache.UpsertPod(std::move(pod), true);
    }
  }
};

// Takes the cache's lock (through a const accessor) in a loop and keeps
// the longest wait: how long anything else held it.
class LockProbe {
 public:
  explicit LockProbe(const cache::Cache& cache)
      : thread_([this, &cache] {
          while (!stop_.load(std::memory_order_relaxed)) {
            absl::Time start = absl::Now();
            benchmark::DoNotOptimize(cache.AssumedCount());
            absl::Duration waited = absl::Now() - start;
            if (waited > longest_) longest_ = waited;
            std::this_thread::yield();
          }
        }) {}
  // Stops the probe; the longest wait seen, in milliseconds.
  double Stop() {
    stop_ = true;
    thread_.join();
    return absl::ToDoubleMilliseconds(longest_);
  }

 private:
  std::atomic<bool> stop_{false};
  absl::Duration longest_ = absl::ZeroDuration();
  std::thread thread_;
};

// Snapshots after `fraction` of the pods changed (0: nothing changed).
void RunSnapshots(benchmark::State& state, double fraction) {
  static Cluster* cluster = new Cluster();  // built once: it takes seconds
  const size_t count = static_cast<size_t>(cluster->pods.size() * fraction);
  size_t next = 0;
  int round = 0;
  benchmark::DoNotOptimize(cluster->cache.Snapshot());  // warm
  LockProbe probe(cluster->cache);
  for (auto _ : state) {
    if (count > 0) {
      state.PauseTiming();
      if (next + count > cluster->pods.size()) {
        next = 0;
        ++round;
      }
      cluster->Change(next, count, round + 1);
      next += count;
      state.ResumeTiming();
    }
    benchmark::DoNotOptimize(cluster->cache.Snapshot());
  }
  state.counters["lock_held_max_ms"] = probe.Stop();
}

void BM_SnapshotUnchanged(benchmark::State& state) { RunSnapshots(state, 0); }
BENCHMARK(BM_SnapshotUnchanged)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SnapshotOnePercentChanged(benchmark::State& state) {
  RunSnapshots(state, 0.01);
}
BENCHMARK(BM_SnapshotOnePercentChanged)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_SnapshotAllChanged(benchmark::State& state) { RunSnapshots(state, 1); }
BENCHMARK(BM_SnapshotAllChanged)->Unit(benchmark::kMillisecond)->UseRealTime();

// The floor: copying a snapshot already made.
void BM_ClusterInfoCopy(benchmark::State& state) {
  cache::Cache cache("shoal");
  BuildSyntheticCluster(SyntheticClusterSpec(), cache);
  const api::ClusterInfo cluster = cache.Snapshot();
  for (auto _ : state) {
    api::ClusterInfo copy = cluster;
    benchmark::DoNotOptimize(copy);
  }
}
BENCHMARK(BM_ClusterInfoCopy)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace shoal::bench

BENCHMARK_MAIN();
