// GPUs published through DRA (gpus.h): the shipped gpu-sharing scenarios
// shared, partitioned and not shared. Every check reads the world's
// claims and slices, not the allocator's bookkeeping: what the API server
// would hold.
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "plugins/builtin.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/api/quantity.h"
#include "scheduler/framework/config.h"
#include "tools/simulator/gpus.h"
#include "tools/simulator/simulator.h"

namespace shoal::sim {
namespace {

constexpr char kSharing[] = "tools/simulator/scenarios/gpu-sharing.yaml";
constexpr char kPartitions[] = "tools/simulator/scenarios/gpu-partitions.yaml";

int64_t Bytes(const std::string& q) {
  auto b = api::ParseQuantity(q, api::QuantityScale::kUnit);
  EXPECT_TRUE(b.ok()) << q;
  return b.ok() ? *b : 0;
}

// What the claims hold of each device and counter, checked against what
// the slices offer; `most` is the most claims one device served at once.
struct Ledger {
  std::map<std::string, const api::Device*> devices;  // pool/device
  std::map<std::tuple<std::string, std::string, std::string>, int64_t>
      counters;  // (pool, set, counter) -> total
  int most = 0;
  int observed = 0;

  std::vector<api::ResourceSlice> slices;

  explicit Ledger(std::vector<api::ResourceSlice> published)
      : slices(std::move(published)) {
    for (const api::ResourceSlice& s : slices) {
      for (const api::Device& d : s.devices)
        devices[s.pool + "/" + d.name] = &d;
      for (const api::CounterSet& set : s.shared_counters) {
        for (const api::CounterAmount& c : set.counters)
          counters[{s.pool, set.name, c.name}] = Bytes(c.value);
      }
    }
  }

  // Nothing over-consumed: a device's memory by its shares, a device that
  // is not shared by two claims, a counter set by its devices.
  void Check(const std::map<std::string, api::ResourceClaim>& claims,
             const std::string& when) {
    ++observed;
    std::map<std::string, int64_t> memory;
    std::map<std::string, int> holders;
    std::map<std::tuple<std::string, std::string, std::string>, int64_t> spent;
    for (const auto& [key, c] : claims) {
      if (!c.allocation.has_value()) continue;
      for (const api::DeviceResult& r : c.allocation->results) {
        const std::string id = r.pool + "/" + r.device;
        auto d = devices.find(id);
        ASSERT_NE(d, devices.end()) << key << " got " << id << " " << when;
        ++holders[id];
        for (const auto& [name, q] : r.consumed_capacity)
          if (name == "memory") memory[id] += Bytes(q);
        for (const api::CounterConsumption& use : d->second->consumes_counters)
          for (const api::CounterAmount& a : use.counters)
            spent[{r.pool, use.counter_set, a.name}] += Bytes(a.value);
      }
    }
    for (const auto& [id, n] : holders) {
      const api::Device& d = *devices.at(id);
      most = std::max(most, n);
      if (!d.allow_multiple_allocations) {
        EXPECT_EQ(n, 1) << id << " given to " << n << " claims " << when;
      } else {
        EXPECT_LE(memory[id], Bytes(d.capacity[0].value))
            << id << ": its shares consume more memory than it has " << when;
      }
    }
    for (const auto& [k, amount] : spent) {
      EXPECT_LE(amount, counters.at(k))
          << std::get<0>(k) << " " << std::get<1>(k) << " " << std::get<2>(k)
          << ": counters overspent " << when;
    }
  }
};

struct GpuRun {
  Result result;
  int most_claims_on_a_device = 0;
};

GpuRun Simulated(const std::string& path, bool no_sharing) {
  auto scenario = LoadScenario(path);
  EXPECT_TRUE(scenario.ok()) << scenario.status();
  auto config = framework::LoadSchedulerConfig(scenario->policy);
  EXPECT_TRUE(config.ok()) << config.status();
  auto policy = framework::BuildPolicy(*config, plugins::BuiltinPlugins(),
                                       actions::BuiltinActions());
  EXPECT_TRUE(policy.ok()) << policy.status();
  // The slices the world publishes (gpus.h), built as it builds them.
  Ledger ledger(Gpus(*scenario, !no_sharing).slices());
  Options options;
  options.no_gpu_sharing = no_sharing;
  int64_t cycle = 0;
  options.observe_claims =
      [&](const std::map<std::string, api::ResourceClaim>& claims) {
        // Every 10th cycle: the run takes long enough as it is.
        if (cycle++ % 10 == 0)
          ledger.Check(claims, absl::StrCat("at cycle ", cycle - 1));
      };
  GpuRun run{Simulate(*scenario, *policy, options), 0};
  std::map<std::string, api::ResourceClaim> final_claims;
  for (const api::ResourceClaim& c : run.result.gpu_claims)
    final_claims[c.Key()] = c;
  ledger.Check(final_claims, "at the end");
  EXPECT_GT(ledger.observed, 100);
  run.most_claims_on_a_device = ledger.most;
  return run;
}

double Wait(const Result& r, const std::string& workload,
            const std::string& stat) {
  return r.summary["workloads"][workload][stat].get<double>();
}

TEST(GpuSharing, SharesFitTheMemoryAndWholeGpusWaitLonger) {
  GpuRun shared = Simulated(kSharing, false);
  const auto& s = shared.result.summary;
  EXPECT_EQ(s["jobs"]["completed"].get<int>(),
            s["jobs"]["submitted"].get<int>())
      << s.dump();
  // More inference pods on one GPU than whole GPUs allow (one), as the
  // world's claims showed and as the summary counts.
  EXPECT_GT(shared.most_claims_on_a_device, 1);
  EXPECT_GT(s["gpus"]["mostClaimsOnAGpu"].get<int>(), 1);
  EXPECT_LE(s["gpus"]["memoryAllocated"]["mean"].get<double>(), 1.0);

  GpuRun whole = Simulated(kSharing, true);
  const auto& w = whole.result.summary;
  EXPECT_EQ(whole.most_claims_on_a_device, 1);
  EXPECT_FALSE(w["gpus"]["sharing"].get<bool>());
  // The same pods hold more of the GPUs for what they ask, and wait.
  EXPECT_GT(w["gpus"]["busy"]["mean"].get<double>(),
            s["gpus"]["busy"]["mean"].get<double>());
  EXPECT_GT(w["gpus"]["memoryAllocated"]["mean"].get<double>(),
            w["gpus"]["memoryAsked"]["mean"].get<double>());
  for (const char* workload : {"infer-10g", "infer-20g", "train-8"}) {
    EXPECT_GT(Wait(whole.result, workload, "waitMeanSeconds"),
              Wait(shared.result, workload, "waitMeanSeconds"))
        << workload;
  }
  EXPECT_GT(w["jobs"]["waitMeanSeconds"].get<double>(),
            s["jobs"]["waitMeanSeconds"].get<double>());
  EXPECT_GT(w["pendingJobs"]["mean"].get<double>(),
            s["pendingJobs"]["mean"].get<double>());
}

TEST(GpuSharing, PartitionsNeverSpendMoreThanAGpusCounters) {
  GpuRun run = Simulated(kPartitions, false);
  const auto& s = run.result.summary;
  EXPECT_EQ(s["jobs"]["completed"].get<int>(),
            s["jobs"]["submitted"].get<int>())
      << s.dump();
  // Partitions are devices of their own, each to one claim; several of
  // one GPU ran at once.
  EXPECT_EQ(run.most_claims_on_a_device, 1);
  EXPECT_GT(s["gpus"]["mostClaimsOnAGpu"].get<int>(), 1);
}

TEST(GpuSharing, RefusalsNameTheField) {
  auto bad = [](const std::string& pools, const std::string& gpu) {
    return ParseScenario(
        absl::StrCat("duration: 1h\ncluster:\n  nodes: [{prefix: n, count: 1, "
                     "allocatable: {cpu: \"8\"}",
                     pools,
                     "}]\nworkloads:\n- kind: Job\n  name: j\n  tasks: [{name: "
                     "t, replicas: 1, requests: {cpu: \"1\"}",
                     gpu, "}]\n"),
        "s.yaml");
  };
  EXPECT_TRUE(
      bad(", gpus: {count: 8, share: true}", ", gpu: {memory: 20Gi}").ok());
  auto r = bad(", gpus: {count: 8, share: true, partitions: 7}", "");
  EXPECT_NE(r.status().message().find("cluster.nodes[0].gpus: share and "
                                      "partitions exclude each other"),
            std::string::npos)
      << r.status();
  r = bad(", gpus: {count: 8}", ", gpu: partition");
  EXPECT_NE(r.status().message().find(
                "workloads[0].tasks[0].gpu: no node pool has gpus with "
                "partitions"),
            std::string::npos)
      << r.status();
  r = bad("", ", gpu: whole");
  EXPECT_NE(r.status().message().find("no node pool has gpus"),
            std::string::npos)
      << r.status();
  r = bad(", gpus: {count: 8, memory: lots}", "");
  EXPECT_NE(r.status().message().find("cluster.nodes[0].gpus.memory"),
            std::string::npos)
      << r.status();
  r = bad(", gpus: {count: 8}", ", gpu: {memory: 10Gi, count: 2}");
  EXPECT_NE(r.status().message().find("workloads[0].tasks[0].gpu: memory"),
            std::string::npos)
      << r.status();
  r = bad(", gpus: {count: 8}", ", gpu: half");
  EXPECT_NE(r.status().message().find("workloads[0].tasks[0].gpu: must be"),
            std::string::npos)
      << r.status();
}

}  // namespace
}  // namespace shoal::sim
