// One full scheduling cycle with Dynamic Resource Allocation, with the
// default policy, on the clusters of tools/bench/dra_world.h: 1,000 nodes
// with 8 GPUs each (driver gpu.example.com), one DeviceClass selecting the
// driver, and 2,000 pending pods in 250 gangs of 8, each pod with its own
// claim of one device of the class.
//
// BM_DraCycle: half the devices a100 and half h100, half the pods also
// asking for an a100 by a request selector; everything fits.
// BM_DraCycleFull is the same cluster with 6,996 of its devices already
// allocated to the claims of running pods, leaving 1,004 a100s: 125 gangs
// fit, each of the other 125 places 4 pods, is discarded and gives their
// devices back (the failure path, with its explanations).
// BM_DraCycleQuota is BM_DraCycle with the queue's capability naming the
// class (deviceclass/gpu.example.com: 2000, exactly what the pods claim),
// so devices are counted against it.
// BM_DraCyclePartitions: partitionable GPUs, each offered whole and as 7
// partitions spending its shared counters (memory 70Gi, slices 7), the
// counter sets in a slice of their own per pool; half the gangs ask for
// whole GPUs, half for partitions. BM_DraCycleShared: GPUs allowing
// multiple allocations, 80Gi each, every claim asking for 20Gi.
//
// BM_DraCyclePreempt: making room for gangs by evicting device holders,
// under `actions: enqueue, allocate, preempt, backfill` (priority, gang;
// predicates, nodeorder). All 8,000 GPUs are held by running jobs of
// priority 1, one per node, each pod with its own allocated claim of one
// GPU: on 250 nodes elastic (minMember 4 of 8), on 750 gangs (minMember
// 8). The 250 pending gangs have priority 1000. Allocate finds no device;
// preempt evicts the elastic jobs' spare pods (one per pod placed, the
// a100 holders for the pods asking an a100) and then ends whole gangs,
// and pipelines the pending pods onto the devices their claims give back.
//
//   bazel run -c opt //tools/bench:dra_bench -- --benchmark_repetitions=5
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "plugins/builtin.h"
#include "policies/default_policy.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/api/quantity.h"
#include "scheduler/framework/cycle.h"
#include "tools/bench/dra_world.h"
#include "tools/bench/peak_rss.h"

namespace shoal::bench {
namespace {

size_t ClaimsOf(const framework::CycleOutcome& out) {
  size_t claims = 0;
  for (const auto& b : out.binds) claims += b.claims.size();
  return claims;
}

void Check(bool ok, const std::string& what) {
  if (ok) return;
  std::cerr << "dra_bench: wrong answer: " << what << "\n";
  std::abort();
}

int64_t Milli(const std::string& quantity) {
  auto v = api::ParseQuantity(quantity, api::QuantityScale::kMilli);
  Check(v.ok(), "cannot parse " + quantity);
  return *v;
}

// What the checks learnt beside right or wrong, reported as counters.
using Facts = std::map<std::string, double>;

// kPartitions: every partition device (the same on every node) by name,
// with what it spends, and each counter's total.
struct CounterBook {
  std::map<std::string, const api::Device*> devices;
  std::map<std::pair<std::string, std::string>, int64_t> totals;
  std::vector<api::ResourceSlice> slices =
      SlicesOf(DraScenario::kPartitions, 0);
  CounterBook() {
    for (const api::ResourceSlice& s : slices) {
      for (const api::CounterSet& set : s.shared_counters) {
        for (const api::CounterAmount& c : set.counters)
          totals[{set.name, c.name}] = Milli(c.value);
      }
      for (const api::Device& d : s.devices) devices[d.name] = &d;
    }
  }
};

const std::string& Attribute(const api::Device& d, const std::string& name) {
  for (const auto& [n, v] : d.attributes) {
    if (n == absl::StrCat(kDriver, "/", name)) return v.s;
  }
  static const std::string none;
  return none;
}

// A benchmark whose answer is wrong is worthless: checks the first
// cycle's binds. Every bound pod got one new allocation of one device
// of its own node, of the kind it asked for (an a100, a whole GPU or a
// partition), none a running pod holds, no device twice unless shared;
// no shared device gives more than its memory and no GPU's partitions
// and whole device more than its counters; gangs bind whole.
Facts CheckOutcome(const framework::CycleOutcome& out, const DraWorld& world) {
  static const CounterBook* const book = new CounterBook;
  const bool partitions = world.scenario == DraScenario::kPartitions;
  const bool shared = world.scenario == DraScenario::kShared;
  std::set<std::string> seen, share_ids;
  std::map<std::string, int> per_job;
  // (node, counter set, counter), or (node, device) for shared memory.
  std::map<std::tuple<std::string, std::string, std::string>, int64_t> used;
  std::map<std::string, std::set<std::string>> kinds_on_node;
  std::set<std::string> split;  // node/counter set with a partition taken
  for (const auto& b : out.binds) {
    const api::PodInfo& pod = *out.cluster.tasks[b.task].pod;
    const std::string& node = out.cluster.nodes[b.node].name();
    Check(b.claims.size() == 1, pod.Key() + " has not one claim write");
    const api::ClaimWrite& w = b.claims[0];
    Check(w.name == pod.resource_claims[0].claim && w.newly_allocated,
          pod.Key() + "'s claim is not newly allocated");
    Check(w.allocation.node == node, pod.Key() + "'s devices are elsewhere");
    Check(w.allocation.results.size() == 1,
          pod.Key() + " did not get exactly one device");
    const api::DeviceResult& r = w.allocation.results[0];
    Check(r.driver == kDriver && r.pool == node, pod.Key() + ": wrong pool");
    const std::string key = absl::StrCat(r.pool, "/", r.device);
    Check(seen.insert(key).second || shared, key + " allocated twice");
    ++per_job[pod.group];
    if (partitions) {
      auto it = book->devices.find(r.device);
      Check(it != book->devices.end(), pod.Key() + ": no device " + r.device);
      const api::Device& d = *it->second;
      const bool whole = AsksWhole(GangIndex(pod.group));
      const std::string& profile = Attribute(d, "profile");
      Check(profile == (whole ? kWholeProfile : kPartitionProfile),
            pod.Key() + " got a " + profile);
      kinds_on_node[node].insert(profile);
      if (!whole) split.insert(node + "/" + d.consumes_counters[0].counter_set);
      for (const api::CounterConsumption& use : d.consumes_counters) {
        for (const api::CounterAmount& c : use.counters)
          used[{node, use.counter_set, c.name}] += Milli(c.value);
      }
      continue;
    }
    const int d = std::stoi(r.device.substr(4));
    if (world.full) {
      const int n = std::stoi(node.substr(5));
      Check(n < kNodesWithRoom && IsA100(d),
            pod.Key() + " got a device a running pod holds");
    }
    Check(PodIndex(pod.name) % 2 != 0 || IsA100(d),
          pod.Key() + " asked for an a100");
    if (shared) {
      Check(!r.share_id.empty() && share_ids.insert(r.share_id).second,
            pod.Key() + ": no share id, or one given twice");
      Check(r.consumed_capacity.size() == 1 &&
                r.consumed_capacity[0].first == "memory",
            pod.Key() + ": consumed capacity not written as memory");
      const int64_t amount = Milli(r.consumed_capacity[0].second);
      Check(amount == Milli(kShareRequest),
            pod.Key() + " consumes " + r.consumed_capacity[0].second);
      used[{node, r.device, "memory"}] += amount;
    }
  }
  for (const auto& [job, pods] : per_job) {
    Check(pods == kPodsPerGang, job + " bound partly");
  }
  const size_t want = (world.full ? 125 : kGangs) * kPodsPerGang;
  Check(out.binds.size() == want,
        absl::StrCat(out.binds.size(), " binds, not ", want));
  Facts facts;
  for (const auto& [k, amount] : used) {
    const auto& [node, set, counter] = k;
    const int64_t total =
        shared ? Milli(kSharedMemory) : book->totals.at({set, counter});
    Check(amount <= total, absl::StrCat(node, " ", set, " ", counter, ": ",
                                        amount, " spent of ", total));
    if (shared) {
      facts["shares_per_gpu_max"] =
          std::max(facts["shares_per_gpu_max"],
                   static_cast<double>(amount / Milli(kShareRequest)));
      facts["gpus_used"] += 1;
    }
  }
  if (partitions) facts["gpus_split"] = static_cast<double>(split.size());
  for (const auto& [node, kinds] : kinds_on_node)
    facts["nodes_mixed"] += kinds.size() > 1;
  return facts;
}

void RunCycles(benchmark::State& state, const DraWorld& world) {
  cache::Cache cache("shoal");
  BuildDraCluster(world, cache);
  auto config =
      framework::ParseSchedulerConfig(policies::kDefaultPolicy, "default.yaml");
  auto policy = framework::BuildPolicy(*config, plugins::BuiltinPlugins(),
                                       actions::BuiltinActions());
  const Facts facts =
      CheckOutcome(framework::RunCycle(cache.Snapshot(), *policy), world);
  size_t binds = 0, claims = 0;
  for (auto _ : state) {
    framework::CycleOutcome out =
        framework::RunCycle(cache.Snapshot(), *policy);
    binds = out.binds.size();
    claims = ClaimsOf(out);
    benchmark::DoNotOptimize(out);
  }
  state.counters["binds"] = static_cast<double>(binds);
  state.counters["claims_allocated"] = static_cast<double>(claims);
  state.counters["peak_rss_MiB"] = PeakRssMib();
  for (const auto& [name, value] : facts) state.counters[name] = value;
}

constexpr char kPreemptPolicy[] = R"(
actions: "enqueue, allocate, preempt, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
  - name: nodeorder
)";

// An action timed, to tell where a cycle's time goes.
class TimedAction : public framework::Action {
 public:
  TimedAction(std::unique_ptr<framework::Action> inner, absl::Duration* total)
      : inner_(std::move(inner)), total_(total) {}
  void Execute(framework::Session& s) override {
    const absl::Time start = absl::Now();
    inner_->Execute(s);
    *total_ += absl::Now() - start;
  }

 private:
  std::unique_ptr<framework::Action> inner_;
  absl::Duration* total_;
};

// The built-in actions, each adding its time to totals[name].
framework::ActionRegistry TimedActions(
    std::map<std::string, absl::Duration>& totals) {
  framework::ActionRegistry builtin = actions::BuiltinActions();
  framework::ActionRegistry timed;
  for (const std::string& name : builtin.Names()) {
    absl::Duration* total = &totals[name];
    timed.Add(
        name,
        [factory = *builtin.Find(name), total](const framework::Arguments& args)
            -> absl::StatusOr<std::unique_ptr<framework::Action>> {
          auto action = factory(args);
          if (!action.ok()) return action.status();
          return std::make_unique<TimedAction>(std::move(*action), total);
        });
  }
  return timed;
}

// What one preempting cycle did.
struct Preempted {
  size_t evictions = 0;
  size_t pipelined = 0;
  size_t binds = 0;
};

Preempted Count(const framework::CycleOutcome& out) {
  Preempted p;
  p.evictions = out.evictions.size();
  p.binds = out.binds.size();
  for (const api::TaskInfo& t : out.cluster.tasks)
    p.pipelined += t.status == api::TaskStatus::kPipelined;
  return p;
}

// Checks a preempting cycle: nothing binds (every device stays held
// until the victims' claims are deallocated), only the low-priority pods
// are evicted and only the pending ones pipelined, gangs whole; on each
// node no more pods wait than victims leave, nor more of the pods asking
// an a100 than a100 holders leave.
Facts CheckPreempt(const framework::CycleOutcome& out) {
  const api::ClusterInfo& c = out.cluster;
  Check(out.binds.empty(), absl::StrCat(out.binds.size(), " binds, not 0"));
  std::map<api::NodeIndex, int> freed, freed_a100, waiting, waiting_a100;
  std::set<std::string> jobs_hit;
  Facts facts;
  for (const framework::EvictDecision& e : out.evictions) {
    const api::TaskInfo& t = c.tasks[e.task];
    Check(t.pod->ns == kLowNamespace, t.pod->Key() + " evicted");
    Check(e.reason == "preempt" || e.reason == "elastic",
          t.pod->Key() + " evicted for " + e.reason);
    ++freed[t.node];
    if (IsA100(PodIndex(t.pod->name))) ++freed_a100[t.node];
    jobs_hit.insert(t.pod->group);
    facts[e.reason == "elastic" ? "evicted_elastic" : "evicted_gang"] += 1;
  }
  std::map<std::string, int> per_job;
  for (const api::TaskInfo& t : c.tasks) {
    if (t.status != api::TaskStatus::kPipelined) continue;
    Check(t.pod->ns != kLowNamespace, t.pod->Key() + " pipelined");
    ++per_job[t.pod->group];
    ++waiting[t.node];
    if (PodIndex(t.pod->name) % 2 == 0) ++waiting_a100[t.node];
  }
  for (const auto& [job, pods] : per_job) {
    Check(pods == kPodsPerGang, job + " pipelined partly");
  }
  for (const auto& [node, pods] : waiting) {
    const std::string& name = c.nodes[node].name();
    Check(pods <= freed[node], absl::StrCat(name, ": ", pods, " pods wait for ",
                                            freed[node], " devices"));
    Check(waiting_a100[node] <= freed_a100[node],
          absl::StrCat(name, ": ", waiting_a100[node], " pods wait for ",
                       freed_a100[node], " a100s"));
  }
  facts["gangs_pipelined"] = static_cast<double>(per_job.size());
  facts["low_jobs_hit"] = static_cast<double>(jobs_hit.size());
  facts["nodes_used"] = static_cast<double>(waiting.size());
  return facts;
}

// BM_DraCyclePreempt: one cycle per iteration, as RunCycles, under
// kPreemptPolicy, with each action's time per cycle (<action>_ms).
void RunPreemptCycles(benchmark::State& state, const DraWorld& world) {
  cache::Cache cache("shoal");
  BuildDraCluster(world, cache);
  auto config = framework::ParseSchedulerConfig(kPreemptPolicy, "preempt");
  Check(config.ok(), "the policy does not parse");
  std::map<std::string, absl::Duration> action_time;
  auto policy = framework::BuildPolicy(*config, plugins::BuiltinPlugins(),
                                       TimedActions(action_time));
  Check(policy.ok(), "the policy does not build");
  const Facts facts =
      CheckPreempt(framework::RunCycle(cache.Snapshot(), *policy));
  for (auto& [name, total] : action_time) total = absl::ZeroDuration();
  Preempted last;
  for (auto _ : state) {
    framework::CycleOutcome out =
        framework::RunCycle(cache.Snapshot(), *policy);
    last = Count(out);
    benchmark::DoNotOptimize(out);
  }
  // It must measure the real path: room made by evicting device holders.
  if (last.evictions == 0 || last.pipelined == 0) {
    state.SkipWithError(absl::StrCat("the cycle evicted ", last.evictions,
                                     " and pipelined ", last.pipelined)
                            .c_str());
  }
  state.counters["evictions"] = static_cast<double>(last.evictions);
  state.counters["pipelined"] = static_cast<double>(last.pipelined);
  state.counters["binds"] = static_cast<double>(last.binds);
  state.counters["peak_rss_MiB"] = PeakRssMib();
  for (const auto& [name, value] : facts) state.counters[name] = value;
  for (const auto& [name, total] : action_time) {
    if (total == absl::ZeroDuration() || state.iterations() == 0) continue;
    state.counters[name + "_ms"] =
        absl::ToDoubleMilliseconds(total) / state.iterations();
  }
}

DraWorld World(DraScenario scenario, bool full = false, bool quota = false) {
  DraWorld w;
  w.scenario = scenario;
  w.full = full;
  w.quota = quota;
  return w;
}

void BM_DraCycle(benchmark::State& state) {
  RunCycles(state, World(DraScenario::kModels));
}
BENCHMARK(BM_DraCycle)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_DraCycleFull(benchmark::State& state) {
  RunCycles(state, World(DraScenario::kModels, /*full=*/true));
}
BENCHMARK(BM_DraCycleFull)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_DraCycleQuota(benchmark::State& state) {
  RunCycles(state, World(DraScenario::kModels, false, /*quota=*/true));
}
BENCHMARK(BM_DraCycleQuota)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_DraCyclePartitions(benchmark::State& state) {
  RunCycles(state, World(DraScenario::kPartitions));
}
BENCHMARK(BM_DraCyclePartitions)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_DraCycleShared(benchmark::State& state) {
  RunCycles(state, World(DraScenario::kShared));
}
BENCHMARK(BM_DraCycleShared)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_DraCyclePreempt(benchmark::State& state) {
  DraWorld world = World(DraScenario::kModels);
  world.held = true;
  RunPreemptCycles(state, world);
}
BENCHMARK(BM_DraCyclePreempt)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace shoal::bench
