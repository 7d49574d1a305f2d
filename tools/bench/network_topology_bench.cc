// One scheduling cycle of gangs bound to the network
// (scheduler/actions/network_domains.h):
//
//   bazel run //tools/bench:network_topology_bench -- --benchmark_repetitions=5
//
// (from the repository root when started without bazel run: the policy is
// read from policies/default.yaml.)
//
// The cluster: 4,096 nodes of 64 cpu and 256Gi in three tiers of Volcano
// HyperNodes: 128 racks of 32 nodes (tier 1, each naming its nodes one by
// one), 8 spines of 16 racks (tier 2), one block holding the spines (tier
// 3). 50,000 pending pods of 4 cpu and 16Gi in 1,000 gangs of 50
// (minMember 50): half hard at tier 1 (inside one rack), a quarter soft, a
// quarter hard at tier 2 (inside one spine) made of two sub-groups of 25
// (subGroupPolicy by label replica, each hard at tier 1, minSubGroups 2).
// A rack holds 512 such pods, so ten gangs of 50, and the cluster 65,536:
// every gang fits, racks fill up one after another.
//
// BM_NetworkTopologyCycle/unconstrained runs the same gangs without a
// constraint, for the cost of the domain search.
//
// Counters: binds of the cycle; tier-1 gangs and sub-groups placed across
// more than one rack (racks_spanned_by_hard_gangs, must be 0).
#include <iostream>
#include <map>
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

constexpr int kSpines = 8, kRacksPerSpine = 16, kNodesPerRack = 32;
constexpr int kGangs = 1000, kGangPods = 50;

api::HyperNodeMember Member(std::string name, bool hypernode) {
  api::HyperNodeMember m;
  m.type = hypernode ? api::HyperNodeMember::Type::kHyperNode
                     : api::HyperNodeMember::Type::kNode;
  m.value = std::move(name);
  return m;
}

void BuildCluster(bool constrained, cache::Cache& cache) {
  AddPlainNodes(kSpines * kRacksPerSpine * kNodesPerRack, cache);
  api::HyperNodeSpec block;
  block.name = "block-0";
  block.tier = 3;
  for (int s = 0; s < kSpines; ++s) {
    api::HyperNodeSpec spine;
    spine.name = absl::StrCat("spine-", s);
    spine.tier = 2;
    for (int r = 0; r < kRacksPerSpine; ++r) {
      api::HyperNodeSpec rack;
      rack.name = absl::StrCat("rack-", s * kRacksPerSpine + r);
      rack.tier = 1;
      for (int n = 0; n < kNodesPerRack; ++n) {
        const int node = (s * kRacksPerSpine + r) * kNodesPerRack + n;
        rack.members.push_back(Member(absl::StrCat("node-", node), false));
      }
      spine.members.push_back(Member(rack.name, true));
      cache.UpsertHyperNode(rack);
    }
    block.members.push_back(Member(spine.name, true));
    cache.UpsertHyperNode(spine);
  }
  cache.UpsertHyperNode(block);
  const absl::Time start = absl::FromUnixSeconds(1700000000);
  const api::Resource pod = *api::Resource::FromList(
      {{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "1"}}, "bench");
  for (int g = 0; g < kGangs; ++g) {
    UniformJob job{"default", absl::StrCat("gang-", g), kGangPods, kGangPods,
                   pod,       start + absl::Seconds(g)};
    if (constrained) {
      // Half hard tier 1, a quarter soft, a quarter hard tier 2 in two
      // sub-groups hard at tier 1.
      const int kind = g % 4;
      job.network.mode = kind == 2 ? api::NetworkConstraint::Mode::kSoft
                                   : api::NetworkConstraint::Mode::kHard;
      job.network.highest_tier = kind == 3 ? 2 : 1;
      if (kind == 3) {
        api::SubGroupPolicy replica;
        replica.name = "replica";
        replica.size = kGangPods / 2;
        replica.min_groups = 2;
        replica.match_label_keys = {"replica"};
        replica.network.mode = api::NetworkConstraint::Mode::kHard;
        replica.network.highest_tier = 1;
        job.sub_group_policies = {replica};
        job.replicas = 2;
      }
    }
    AddUniformJob(
        job, [](int) { return std::string(); }, cache);
  }
}

void BM_NetworkTopologyCycle(benchmark::State& state, bool constrained) {
  auto config = framework::LoadSchedulerConfig("policies/default.yaml");
  if (!config.ok()) {
    state.SkipWithError(
        "policies/default.yaml not found: run from the "
        "repository root");
    return;
  }
  auto policy = framework::BuildPolicy(*config, plugins::BuiltinPlugins(),
                                       actions::BuiltinActions());
  if (!policy.ok()) {
    state.SkipWithError(std::string(policy.status().message()).c_str());
    return;
  }
  cache::Cache cache("shoal");
  BuildCluster(constrained, cache);
  size_t binds = 0, spanning = 0;
  for (auto _ : state) {
    framework::CycleOutcome out =
        framework::RunCycle(cache.Snapshot(), *policy);
    state.PauseTiming();
    binds = out.binds.size();
    // Tier-1 gangs and sub-groups spread over more than one rack (must be
    // none).
    std::vector<std::set<int>> racks(out.cluster.jobs.size());
    std::map<std::pair<api::JobIndex, int32_t>, std::set<int>> group_racks;
    for (const auto& b : out.binds) {
      const api::TaskInfo& t = out.cluster.tasks[b.task];
      const std::string& node = out.cluster.nodes[b.node].name();
      const int rack = std::stoi(node.substr(5)) / kNodesPerRack;
      racks[t.job].insert(rack);
      if (t.sub_group != api::kNone)
        group_racks[{t.job, t.sub_group}].insert(rack);
    }
    spanning = 0;
    for (size_t j = 0; j < racks.size(); ++j) {
      const api::NetworkConstraint& c = out.cluster.jobs[j].network;
      if (c.mode == api::NetworkConstraint::Mode::kHard &&
          c.highest_tier == 1 && racks[j].size() > 1)
        ++spanning;
    }
    for (const auto& [group, in] : group_racks) spanning += in.size() > 1;
    benchmark::DoNotOptimize(out);
    state.ResumeTiming();
  }
  if (binds == 0) state.SkipWithError("the cycle bound nothing");
  state.counters["binds"] = static_cast<double>(binds);
  state.counters["racks_spanned_by_hard_gangs"] = static_cast<double>(spanning);
  state.counters["peak_rss_MiB"] = PeakRssMib();
}
BENCHMARK_CAPTURE(BM_NetworkTopologyCycle, constrained, true)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_NetworkTopologyCycle, unconstrained, false)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace shoal::bench
