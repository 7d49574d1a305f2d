// What a cycle's snapshot costs on a large cluster (5,000 nodes, 50,000
// pods; tools/bench/synthetic_cluster.h), by what changed since the
// previous one: nothing, 1% of the pods bound (or pending again), 1%
// deleted (or created again), every pod bound, 1% of the pods being
// pods of no PodGroup (jobs of one) that come and go. The cache redoes only
// what changed (scheduler/cache/cache.h); /incremental:0 builds from
// every object each time, as every snapshot did before. The copy every
// session gets of the cluster (BM_ClusterInfoCopy) is the floor.
//
// `lock_wait_*_ms`: how long a thread that takes the cache's lock in a
// loop meanwhile (as the informers do) waited for it, over the longest
// waits, one per snapshot: how long a snapshot keeps the watch from
// applying events. On a busy machine the longest includes the prober's
// own preemption; the median is the figure.
//
//   bazel run -c opt //tools/bench:snapshot_bench --
//     --benchmark_repetitions=3   (one command)
#include <algorithm>
#include <atomic>
#include <functional>
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
  // The pods the last change replaced, freed at the next change (outside
  // the timing) whichever way the snapshot is taken.
  std::vector<std::shared_ptr<const api::PodInfo>> retired;

  Cluster() {
    BuildSyntheticCluster(SyntheticClusterSpec(), cache);
    for (const auto& p : cache.Export().pods) pods.push_back(p.pod);
    for (const auto& n : cache.Export().nodes) nodes.push_back(n->name);
    // Pods of no PodGroup, one beside every hundredth pod (so their keys
    // and jobs fall all through the cluster's), fed only by Singles().
    for (size_t i = 0; i < pods.size(); i += 100) {
      auto single = std::make_shared<api::PodInfo>(*pods[i]);
      single->name += "-single";
      single->uid += "-single";
      single->group.clear();
      single->node_name.clear();
      single->status = api::TaskStatus::kPending;
      singles.push_back(std::move(single));
    }
  }

  std::vector<std::shared_ptr<const api::PodInfo>> singles;

  // Creates `count` of the jobs of one starting at `first` on odd rounds
  // and deletes them again on even ones, as lone pods come and go.
  void Singles(size_t first, size_t count, int round) {
    for (size_t i = 0; i < count; ++i) {
      size_t at = (first + i) % singles.size();
      if (round % 2 == 1) {
        cache.UpsertPod(singles[at], true);
      } else {
        cache.DeletePod(singles[at]->Key());
      }
    }
  }

  // Re-feeds `count` pods starting at `first` (wrapping around), each
  // bound to a node on odd rounds and pending again on even ones, as the
  // watch reports binds: every one is a real change.
  void Change(size_t first, size_t count, int round) {
    retired.clear();
    for (size_t i = 0; i < count; ++i) {
      size_t at = (first + i) % pods.size();
      retired.push_back(cache.FindPod(pods[at]->Key()));
      auto pod = std::make_shared<api::PodInfo>(*pods[at]);
      if (round % 2 == 1) {
        pod->node_name = nodes[at % nodes.size()];
        pod->status = api::TaskStatus::kBound;
      }
      cache.UpsertPod(std::move(pod), true);
    }
  }

  // Deletes `count` pods starting at `first` on odd rounds and creates
  // them again on even ones, as jobs' pods finish and are replaced.
  void Churn(size_t first, size_t count, int round) {
    for (size_t i = 0; i < count; ++i) {
      size_t at = (first + i) % pods.size();
      if (round % 2 == 1) {
        cache.DeletePod(pods[at]->Key());
      } else {
        cache.UpsertPod(pods[at], true);
      }
    }
  }
};

// Takes the cache's lock (through a const accessor) in a loop, as the
// informers do, and keeps every wait long enough to be a snapshot's.
class LockProbe {
 public:
  explicit LockProbe(const cache::Cache& cache)
      : thread_([this, &cache] {
          while (!stop_.load(std::memory_order_relaxed)) {
            absl::Time start = absl::Now();
            benchmark::DoNotOptimize(cache.AssumedCount());
            absl::Duration waited = absl::Now() - start;
            if (waited > absl::Microseconds(20)) waits_.push_back(waited);
            std::this_thread::yield();
          }
        }) {}
  // Stops the probe. Of the `snapshots` longest waits (one a snapshot,
  // the shorter ones the changes between), the median and the longest,
  // in milliseconds.
  std::pair<double, double> Stop(size_t snapshots) {
    stop_ = true;
    thread_.join();
    if (waits_.empty()) return {0, 0};
    std::sort(waits_.begin(), waits_.end(), std::greater<absl::Duration>());
    waits_.resize(std::min(waits_.size(), snapshots));
    return {absl::ToDoubleMilliseconds(waits_[waits_.size() / 2]),
            absl::ToDoubleMilliseconds(waits_.front())};
  }

 private:
  std::atomic<bool> stop_{false};
  std::vector<absl::Duration> waits_;
  std::thread thread_;
};

enum Change { kNothing, kBound, kReplaced, kSingles };

// Snapshots after `per_mille` of the pods changed as `change` says:
// bound or pending again, or deleted or created again. `range(0)` is 1
// for the incremental Snapshot(), 0 for SnapshotFromScratch() (what every
// snapshot cost before).
void RunSnapshots(benchmark::State& state, Change change, int per_mille) {
  static Cluster* cluster = new Cluster();  // built once: it takes seconds
  const bool incremental = state.range(0) == 1;
  const size_t count =
      change == kNothing ? 0 : cluster->pods.size() * per_mille / 1000;
  // The jobs of one come and go all together, a round at a time.
  const size_t pool =
      change == kSingles ? cluster->singles.size() : cluster->pods.size();
  size_t next = 0;
  int round = 0;
  benchmark::DoNotOptimize(cluster->cache.Snapshot());  // warm
  LockProbe probe(cluster->cache);
  for (auto _ : state) {
    if (count > 0) {
      state.PauseTiming();
      if (next + count > pool) {
        next = 0;
        ++round;
      }
      if (change == kSingles) {
        cluster->Singles(next, count, round + 1);
      } else if (change == kReplaced) {
        cluster->Churn(next, count, round + 1);
      } else {
        cluster->Change(next, count, round + 1);
      }
      next += count;
      state.ResumeTiming();
    }
    if (incremental) {
      benchmark::DoNotOptimize(cluster->cache.Snapshot());
    } else {
      benchmark::DoNotOptimize(cluster->cache.SnapshotFromScratch());
    }
  }
  auto [median, longest] = probe.Stop(state.iterations());
  state.counters["lock_wait_median_ms"] = median;
  state.counters["lock_wait_max_ms"] = longest;
}

void BM_SnapshotUnchanged(benchmark::State& state) {
  RunSnapshots(state, kNothing, 0);
}
void BM_SnapshotOnePercentBound(benchmark::State& state) {
  RunSnapshots(state, kBound, 10);
}
void BM_SnapshotOnePercentReplaced(benchmark::State& state) {
  RunSnapshots(state, kReplaced, 10);
}
void BM_SnapshotAllBound(benchmark::State& state) {
  RunSnapshots(state, kBound, 1000);
}
// 1% of the pods are jobs of one (pods of no PodGroup), all created
// between one snapshot and deleted before the next.
void BM_SnapshotOnePercentSinglePods(benchmark::State& state) {
  RunSnapshots(state, kSingles, 10);
}
BENCHMARK(BM_SnapshotUnchanged)
    ->ArgName("incremental")
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_SnapshotOnePercentBound)
    ->ArgName("incremental")
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_SnapshotOnePercentReplaced)
    ->ArgName("incremental")
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_SnapshotAllBound)
    ->ArgName("incremental")
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK(BM_SnapshotOnePercentSinglePods)
    ->ArgName("incremental")
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

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
