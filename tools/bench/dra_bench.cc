// One full scheduling cycle with Dynamic Resource Allocation, with the
// default policy: 1,000 nodes with 8 GPUs each (one ResourceSlice per
// node, driver gpu.example.com, half the devices a100 and half h100),
// one DeviceClass selecting the driver, and 2,000 pending pods in 250
// gangs of 8, each pod with its own claim of one device of the class,
// half of them also asking for an a100 by a request selector
// (BM_DraCycle: everything fits). BM_DraCycleFull is the same cluster
// with 6,996 of its devices already allocated to the claims of running
// pods, leaving 1,004 a100s: 125 gangs fit, each of the other 125 places
// 4 pods, is discarded and gives their devices back (the failure path,
// with its explanations). BM_DraCycleQuota is BM_DraCycle with the queue's
// capability naming the class (deviceclass/gpu.example.com: 2000, exactly
// what the pods claim), so devices are counted against it.
//
//   bazel run -c opt //tools/bench:dra_bench -- --benchmark_repetitions=5
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "plugins/builtin.h"
#include "policies/default_policy.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/api/resource_name.h"
#include "scheduler/framework/cycle.h"
#include "tools/bench/peak_rss.h"
#include "tools/bench/synthetic_cluster.h"

namespace shoal::bench {
namespace {

constexpr char kDriver[] = "gpu.example.com";
constexpr char kA100[] = "device.attributes['gpu.example.com'].model == 'a100'";
constexpr int kNodes = 1000;
constexpr int kDevicesPerNode = 8;
constexpr int kGangs = 250;
constexpr int kPodsPerGang = 8;
// In BM_DraCycleFull, nodes below this keep their a100s free (1,004
// devices: room for 125 gangs and half of a 126th); every other device
// is held.
constexpr int kNodesWithRoom = 251;

api::Resource R(std::vector<std::pair<std::string, std::string>> list) {
  return *api::Resource::FromList(list, "dra_bench");
}

std::string NodeName(int i) { return absl::StrCat("node-", i); }

// Devices gpu-0..3 are a100, gpu-4..7 h100.
bool IsA100(int device) { return device < kDevicesPerNode / 2; }

api::ResourceSlice Slice(int node) {
  api::ResourceSlice s;
  s.name = absl::StrCat(NodeName(node), "-", kDriver);
  s.driver = kDriver;
  s.pool = NodeName(node);
  s.generation = 1;
  s.node_name = NodeName(node);
  for (int d = 0; d < kDevicesPerNode; ++d) {
    api::Device device;
    device.name = absl::StrCat("gpu-", d);
    api::DeviceAttribute model;
    model.s = IsA100(d) ? "a100" : "h100";
    api::DeviceAttribute index;
    index.kind = api::DeviceAttribute::Kind::kInt;
    index.i = d;
    device.attributes = {{absl::StrCat(kDriver, "/model"), model},
                         {absl::StrCat(kDriver, "/index"), index}};
    device.capacity = {
        {absl::StrCat(kDriver, "/memory"), "80Gi", "memory", {}}};
    s.devices.push_back(std::move(device));
  }
  return s;
}

api::ResourceClaim Claim(const std::string& ns, const std::string& name,
                         int64_t count, std::vector<std::string> selectors) {
  api::ResourceClaim c;
  c.ns = ns;
  c.name = name;
  c.uid = "uid-" + name;
  c.resource_version = "1";
  api::DeviceChoice choice;
  choice.name = "gpu";
  choice.device_class = kDriver;
  choice.count = count;
  choice.selectors = std::move(selectors);
  api::DeviceRequest request;
  request.name = "gpu";
  request.choices = {choice};
  c.requests = {request};
  return c;
}

std::shared_ptr<api::PodInfo> Pod(const std::string& ns,
                                  const std::string& name,
                                  const std::string& group,
                                  const std::string& claim) {
  static const auto* const any = [] {
    auto c = std::make_shared<api::PlacementConstraints>();
    c->ComputeFingerprint();
    return new std::shared_ptr<const api::PlacementConstraints>(std::move(c));
  }();
  auto pod = std::make_shared<api::PodInfo>();
  pod->ns = ns;
  pod->name = name;
  pod->uid = "uid-" + name;
  pod->scheduler_name = "shoal";
  pod->group = group;
  pod->created = absl::FromUnixSeconds(1700000000);
  pod->request = R({{"cpu", "1"}, {"memory", "4Gi"}, {"pods", "1"}});
  pod->placement = *any;
  pod->resource_claims.push_back({"gpu", claim, ""});
  return pod;
}

// The cluster; with `full`, 6,996 devices are held by the claims of
// running pods (one per node, of 8 devices, or of its 4 h100s on the
// nodes with room).
void BuildDraCluster(bool full, bool quota, cache::Cache& cache) {
  AddPlainNodes(kNodes, cache);
  api::QueueInfo queue;
  queue.name = "default";
  if (quota) {
    api::Resource cap;
    for (int id = 0; id < api::ResourceNameCount(); ++id) {
      cap.Set(static_cast<api::ResourceId>(id), api::kUnlimited);
    }
    cap.Set(*api::InternResourceName(absl::StrCat("deviceclass/", kDriver)),
            kGangs * kPodsPerGang);
    queue.capability = cap;
  }
  cache.UpsertQueue(queue);
  api::DeviceClass cls;
  cls.name = kDriver;
  cls.selectors = {absl::StrCat("device.driver == '", kDriver, "'")};
  cache.UpsertDeviceClass(cls);
  for (int n = 0; n < kNodes; ++n) cache.UpsertResourceSlice(Slice(n));
  if (full) {
    for (int n = 0; n < kNodes; ++n) {
      const std::string name = absl::StrCat("holder-", n);
      api::ResourceClaim c = Claim("holders", name + "-gpu", 0, {});
      api::DeviceAllocation a;
      a.node = NodeName(n);
      for (int d = 0; d < kDevicesPerNode; ++d) {
        if (n < kNodesWithRoom && IsA100(d)) continue;
        a.results.push_back(
            {"gpu", kDriver, NodeName(n), absl::StrCat("gpu-", d)});
      }
      c.requests[0].choices[0].count = static_cast<int64_t>(a.results.size());
      c.allocation = std::move(a);
      c.reserved_for = {{"pods", name, "uid-" + name}};
      cache.UpsertResourceClaim(std::move(c));
      auto pod = Pod("holders", name, "", name + "-gpu");
      pod->node_name = NodeName(n);
      pod->status = api::TaskStatus::kRunning;
      cache.UpsertPod(std::move(pod), true);
    }
  }
  for (int g = 0; g < kGangs; ++g) {
    api::JobInfo job;
    job.ns = absl::StrCat("team-", g % 20);
    job.name = absl::StrCat("job-", g);
    job.uid = absl::StrCat("uid-job-", g);
    job.queue = "default";
    job.min_member = kPodsPerGang;
    job.created = absl::FromUnixSeconds(1700000000) + absl::Seconds(g);
    job.phase = api::PodGroupPhase::kInqueue;
    cache.UpsertPodGroup(job);
    for (int p = 0; p < kPodsPerGang; ++p) {
      const std::string name = absl::StrCat(job.name, "-", p);
      std::vector<std::string> selectors;
      if (p % 2 == 0) selectors.push_back(kA100);
      cache.UpsertResourceClaim(
          Claim(job.ns, name + "-gpu", 1, std::move(selectors)));
      cache.UpsertPod(Pod(job.ns, name, job.name, name + "-gpu"), true);
    }
  }
}

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

// A benchmark whose answer is wrong is worthless: checks the first
// cycle's binds. Every bound pod got one new allocation of one device
// of its own node, an a100 when it asked for one, no device twice and
// none a running pod holds; gangs bind whole.
void CheckOutcome(const framework::CycleOutcome& out, bool full) {
  std::set<std::string> seen;
  std::map<std::string, int> per_job;
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
    const int d = std::stoi(r.device.substr(4));
    if (full) {
      const int n = std::stoi(node.substr(5));
      Check(n < kNodesWithRoom && IsA100(d),
            pod.Key() + " got a device a running pod holds");
    }
    const int p = std::stoi(pod.name.substr(pod.name.rfind('-') + 1));
    Check(p % 2 != 0 || IsA100(d), pod.Key() + " asked for an a100");
    Check(seen.insert(absl::StrCat(r.pool, "/", r.device)).second,
          absl::StrCat(r.pool, "/", r.device, " allocated twice"));
    ++per_job[pod.group];
  }
  for (const auto& [job, pods] : per_job) {
    Check(pods == kPodsPerGang, job + " bound partly");
  }
  if (full) {
    Check(out.binds.size() == 125 * kPodsPerGang,
          absl::StrCat(out.binds.size(), " binds, not 1000"));
  } else {
    Check(out.binds.size() == kGangs * kPodsPerGang,
          absl::StrCat(out.binds.size(), " binds, not 2000"));
  }
}

void RunCycles(benchmark::State& state, bool full, bool quota = false) {
  cache::Cache cache("shoal");
  BuildDraCluster(full, quota, cache);
  auto config =
      framework::ParseSchedulerConfig(policies::kDefaultPolicy, "default.yaml");
  auto policy = framework::BuildPolicy(*config, plugins::BuiltinPlugins(),
                                       actions::BuiltinActions());
  CheckOutcome(framework::RunCycle(cache.Snapshot(), *policy), full);
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
}

void BM_DraCycle(benchmark::State& state) { RunCycles(state, false); }
BENCHMARK(BM_DraCycle)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_DraCycleFull(benchmark::State& state) { RunCycles(state, true); }
BENCHMARK(BM_DraCycleFull)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_DraCycleQuota(benchmark::State& state) {
  RunCycles(state, false, /*quota=*/true);
}
BENCHMARK(BM_DraCycleQuota)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace shoal::bench
