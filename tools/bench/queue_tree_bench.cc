// One scheduling cycle on a queue tree (Queue spec.parent,
// scheduler/api/queue_tree.h) where reclaim has to find its victims:
//
//   bazel run //tools/bench:queue_tree_bench -- --benchmark_repetitions=5
//
// (run from the repository root when started without bazel run: the
// policies are read from policies/).
//
// The cluster: 5,000 nodes of 64 cpu and 256Gi; 1,110 queues under the
// implicit `root`: 10 top-level queues, each with 10 middle queues, each
// with 10 leaves (1,000 leaf queues, the only ones holding jobs).
// Capabilities, deserved shares and guarantees are set at all three
// levels. 50,000 pods of 8 cpu and 32Gi, in gangs:
//
// * the 500 leaves under the even top-level queues (lenders) hold 76
//   running pods each (4 elastic jobs of 19, minMember 4): 608 cpu
//   against a deserved 256, and so above their deserved share at every
//   level of the tree;
// * the 500 leaves under the odd ones (starving) each wait with 3 gangs
//   of 8 (minMember 8): 192 cpu, below the deserved 256 at every level.
//
// (They part at the top, so every level of a lender's branch is above its
// share where the paths part, and the lender leaves lend.) Evictions stop
// at each lender leaf's own deserved share (32 pods: at most 44 of its 76
// go) or at its jobs' gang floors (minMember), whichever comes first.
//
// The lenders' 38,000 pods fill 4,750 nodes, 8 a node, each job spread
// over many nodes; the last 250 nodes are empty (2,000 pods' room), so
// allocate binds some gangs and reclaim evicts for the other 10,000
// pending pods.
//
// Two policies on the same tree:
// * BM_QueueTreeCycle/capacity: policies/capacity.yaml when it exists,
//   otherwise the capacity policy written below (enqueue, allocate,
//   backfill, reclaim; capacity with enableHierarchy);
// * BM_QueueTreeCycle/fair_share: policies/fair-share.yaml (proportion).
//
// Counters: binds, evictions and pipelined tasks of one cycle, and the
// queues in the snapshot (1,112: the implicit `root` and `default` too).
// SHOAL_BENCH_DETAIL=1 prints where the evictions fell.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
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

// Volcano's hierarchical capacity setup, with the plugins the other
// policies use for gangs and placement.
constexpr char kCapacityPolicy[] =
    R"(actions: "enqueue, allocate, backfill, reclaim"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: predicates
  - name: capacity
    enableHierarchy: true
  - name: nodeorder
)";

constexpr int kNodes = 5000;
constexpr int kTop = 10, kMiddle = 10, kLeaves = 10;
constexpr int kLenderJobs = 4, kLenderPods = 19, kLenderMin = 4;
constexpr int kGangPods = 8;

api::Resource R(std::vector<std::pair<std::string, std::string>> list) {
  return *api::Resource::FromList(list, "queue_tree_bench");
}

// cpu and memory in the ratio of the pods (8 cpu, 32Gi).
api::Resource Cpu(int64_t cpu) {
  return R(
      {{"cpu", absl::StrCat(cpu)}, {"memory", absl::StrCat(cpu * 4, "Gi")}});
}

// `gangs`: how many gangs of 8 each starving leaf waits with (3: the
// 50,000-pod cluster).
void BuildQueueTreeCluster(int gangs, cache::Cache& cache) {
  AddPlainNodes(kNodes, cache);
  // Per leaf: deserved 256 cpu, guarantee 32, capability 1,024. A middle
  // queue deserves its ten leaves' 2,560 (guarantee 400, capability
  // 8,000); a top-level queue its ten middles' 25,600 (guarantee 4,000,
  // capability 64,000). The deserved shares add up to 256,000 of the
  // cluster's 320,000 cpu; memory is 4Gi a cpu throughout.
  auto queue = [&](const std::string& name, const std::string& parent,
                   int64_t deserved, int64_t guarantee, int64_t capability) {
    api::QueueInfo q;
    q.name = name;
    q.parent = parent;
    q.deserved = Cpu(deserved);
    q.guarantee = Cpu(guarantee);
    q.capability = Cpu(capability);
    cache.UpsertQueue(q);
  };
  for (int t = 0; t < kTop; ++t) {
    const std::string top = absl::StrCat("t", t);
    queue(top, "root", 25600, 4000, 64000);
    for (int m = 0; m < kMiddle; ++m) {
      const std::string middle = absl::StrCat(top, "-m", m);
      queue(middle, top, 2560, 400, 8000);
      for (int l = 0; l < kLeaves; ++l) {
        queue(absl::StrCat(middle, "-l", l), middle, 256, 32, 1024);
      }
    }
  }

  const absl::Time start = absl::FromUnixSeconds(1700000000);
  const api::Resource pod_request =
      R({{"cpu", "8"}, {"memory", "32Gi"}, {"pods", "1"}});
  constexpr int kFullNodes = 4750;
  int slot = 0;  // the n-th running pod goes to node n % kFullNodes
  auto add_job = [&](const std::string& leaf, const std::string& name, int pods,
                     int min, bool running, absl::Time created) {
    AddUniformJob(
        {leaf, name, min, pods, pod_request, created,
         running ? api::PodGroupPhase::kRunning : api::PodGroupPhase::kPending},
        [&](int) {
          return running ? absl::StrCat("node-", slot++ % kFullNodes)
                         : std::string();
        },
        cache);
  };
  int leaf_number = 0;
  for (int t = 0; t < kTop; ++t) {
    for (int m = 0; m < kMiddle; ++m) {
      for (int l = 0; l < kLeaves; ++l, ++leaf_number) {
        const std::string leaf = absl::StrCat("t", t, "-m", m, "-l", l);
        if (t % 2 == 0) {  // a lender
          for (int j = 0; j < kLenderJobs; ++j) {
            add_job(leaf, absl::StrCat("run-", leaf, "-", j), kLenderPods,
                    kLenderMin, true, start + absl::Seconds(j));
          }
        } else {  // starving
          for (int j = 0; j < gangs; ++j) {
            add_job(
                leaf, absl::StrCat("gang-", leaf, "-", j), kGangPods, kGangPods,
                false,
                start + absl::Hours(1) + absl::Seconds(leaf_number * 3 + j));
          }
        }
      }
    }
  }
  if (slot != kFullNodes * 8) std::abort();  // the full nodes are full
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return "";
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

framework::Policy LoadPolicy(const std::string& yaml, const std::string& name) {
  auto config = framework::ParseSchedulerConfig(yaml, name);
  if (!config.ok()) {
    std::cerr << config.status() << "\n";
    std::abort();
  }
  auto policy = framework::BuildPolicy(*config, plugins::BuiltinPlugins(),
                                       actions::BuiltinActions());
  if (!policy.ok()) {
    std::cerr << policy.status() << "\n";
    std::abort();
  }
  return std::move(*policy);
}

// Where the cycle's evictions fell, printed once per benchmark when
// SHOAL_BENCH_DETAIL is set: how many nodes and leaves gave victims, and
// the span of node indices they were on.
void PrintDetail(const std::string& title, const framework::CycleOutcome& out) {
  std::map<api::NodeIndex, int> by_node;
  std::map<int32_t, int> by_queue;
  for (const auto& e : out.evictions) {
    const api::TaskInfo& t = out.cluster.tasks[e.task];
    ++by_node[t.node];
    ++by_queue[out.cluster.jobs[t.job].queue_index];
  }
  auto spread = [](const auto& m) {
    int lo = 1 << 30, hi = 0;
    for (const auto& [k, n] : m) lo = std::min(lo, n), hi = std::max(hi, n);
    return absl::StrCat(m.size(), " (", m.empty() ? 0 : lo, " to ", hi,
                        " each)");
  };
  std::cerr << title << ": " << out.binds.size() << " binds, "
            << out.evictions.size() << " evictions on nodes "
            << (by_node.empty() ? 0 : by_node.begin()->first) << " to "
            << (by_node.empty() ? 0 : by_node.rbegin()->first) << ", "
            << spread(by_node) << " nodes, " << spread(by_queue) << " queues\n";
}

void RunQueueTreeCycles(benchmark::State& state, bool capacity, int gangs) {
  std::string name, yaml;
  if (capacity) {
    name = "policies/capacity.yaml";
    yaml = ReadFile(name);
    if (yaml.empty()) {
      name = "capacity policy in queue_tree_bench.cc";
      yaml = kCapacityPolicy;
    }
  } else {
    name = "policies/fair-share.yaml";
    yaml = ReadFile(name);
    if (yaml.empty()) {
      state.SkipWithError(
          "policies/fair-share.yaml not found: run from the "
          "repository root");
      return;
    }
  }
  framework::Policy policy = LoadPolicy(yaml, name);
  cache::Cache cache("shoal");
  BuildQueueTreeCluster(gangs, cache);
  size_t binds = 0, evictions = 0, pipelined = 0, queues = 0;
  std::string waiting;  // why a starving gang still waits
  bool detail = std::getenv("SHOAL_BENCH_DETAIL") != nullptr;
  for (auto _ : state) {
    framework::CycleOutcome out = framework::RunCycle(cache.Snapshot(), policy);
    state.PauseTiming();
    binds = out.binds.size();
    evictions = out.evictions.size();
    pipelined = 0;
    for (const api::TaskInfo& t : out.cluster.tasks) {
      if (t.status == api::TaskStatus::kPipelined) ++pipelined;
    }
    queues = out.cluster.queues.size();
    waiting.clear();
    for (const api::JobInfo& j : out.cluster.jobs) {
      if (j.PendingCount() == j.tasks.size() && !j.tasks.empty()) {
        waiting = absl::StrCat(j.name, ": ", j.message, " / ", j.fit_error);
        break;
      }
    }
    if (detail) {
      PrintDetail(absl::StrCat(name, ", ", gangs, " gangs a starving leaf"),
                  out);
      detail = false;
    }
    benchmark::DoNotOptimize(out);
    state.ResumeTiming();  // destroying `out` counts, as in the others
  }
  // A cycle that neither binds nor evicts measures nothing.
  if (binds == 0 || evictions == 0) {
    state.SkipWithError(
        absl::StrCat("the cycle bound ", binds, " and evicted ", evictions,
                     ": the benchmark does not exercise reclaim (", waiting,
                     ")")
            .c_str());
  }
  state.SetLabel(name);
  state.counters["binds"] = static_cast<double>(binds);
  state.counters["evictions"] = static_cast<double>(evictions);
  state.counters["pipelined"] = static_cast<double>(pipelined);
  state.counters["queues"] = static_cast<double>(queues);
  state.counters["peak_rss_MiB"] = PeakRssMib();
}

// The 50,000-pod cluster: 3 gangs a starving leaf.
void BM_QueueTreeCycle(benchmark::State& state, bool capacity) {
  RunQueueTreeCycles(state, capacity, 3);
}
BENCHMARK_CAPTURE(BM_QueueTreeCycle, capacity, true)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_QueueTreeCycle, fair_share, false)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// How the cycle grows with the evictions it makes: 1 and 2 gangs a
// starving leaf (4,000 and 8,000 pending pods, 2,000 of them bound into the
// empty nodes, the rest reclaimed), capacity policy. Run it with
// --benchmark_filter=Scaling beside BM_QueueTreeCycle/capacity (3 gangs).
void BM_QueueTreeReclaimScaling(benchmark::State& state) {
  RunQueueTreeCycles(state, true, static_cast<int>(state.range(0)));
}
BENCHMARK(BM_QueueTreeReclaimScaling)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace shoal::bench
