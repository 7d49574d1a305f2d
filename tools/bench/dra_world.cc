#include "tools/bench/dra_world.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/api/resource_name.h"
#include "tools/bench/synthetic_cluster.h"

namespace shoal::bench {
namespace {

api::Resource R(std::vector<std::pair<std::string, std::string>> list) {
  return *api::Resource::FromList(list, "dra_world");
}

api::DeviceAttribute String(const std::string& s) {
  api::DeviceAttribute a;
  a.s = s;
  return a;
}

api::DeviceAttribute Int(int64_t i) {
  api::DeviceAttribute a;
  a.kind = api::DeviceAttribute::Kind::kInt;
  a.i = i;
  return a;
}

std::string Qualified(const std::string& name) {
  return absl::StrCat(kDriver, "/", name);
}

std::string Selector(const std::string& attribute, const std::string& value) {
  return absl::StrCat("device.attributes['", kDriver, "'].", attribute, " == '",
                      value, "'");
}

api::ResourceSlice SliceHeader(int node, const std::string& suffix) {
  api::ResourceSlice s;
  s.name = absl::StrCat(NodeName(node), "-", kDriver, suffix);
  s.driver = kDriver;
  s.pool = NodeName(node);
  s.generation = 1;
  s.node_name = NodeName(node);
  return s;
}

// kModels and kShared: 8 GPUs of 80Gi.
api::ResourceSlice ModelSlice(int node, bool shared) {
  api::ResourceSlice s = SliceHeader(node, "");
  for (int d = 0; d < kDevicesPerNode; ++d) {
    api::Device device;
    device.name = absl::StrCat("gpu-", d);
    device.attributes = {
        {Qualified("model"), String(IsA100(d) ? "a100" : "h100")},
        {Qualified("index"), Int(d)}};
    device.capacity = {
        {Qualified("memory"), shared ? kSharedMemory : "80Gi", "memory", {}}};
    device.allow_multiple_allocations = shared;
    s.devices.push_back(std::move(device));
  }
  return s;
}

// kPartitions: a device of GPU `gpu` spending `slices` of its 7.
api::Device Partition(int gpu, const std::string& name,
                      const std::string& profile, int slices) {
  api::Device d;
  d.name = name;
  d.attributes = {{Qualified("profile"), String(profile)},
                  {Qualified("parent"), Int(gpu)}};
  const std::string memory = absl::StrCat(10 * slices, "Gi");
  d.capacity = {{Qualified("memory"), memory, "memory", {}}};
  d.consumes_counters = {
      {absl::StrCat("gpu-", gpu, "-counters"),
       {{"memory", memory}, {"slices", absl::StrCat(slices)}}}};
  return d;
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

// Each node's running pod holding 8 devices, or on the nodes with room
// its 4 h100s.
void AddHolders(cache::Cache& cache) {
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

// kModels with `held`: every device held, one running low-priority job
// per node, each pod with its own claim of one GPU.
void AddLowPriorityJobs(cache::Cache& cache) {
  for (int n = 0; n < kNodes; ++n) {
    api::JobInfo job;
    job.ns = kLowNamespace;
    job.name = absl::StrCat("low-", n);
    job.uid = absl::StrCat("uid-low-", n);
    job.queue = "default";
    job.min_member =
        n < kElasticHolderNodes ? kElasticMinMember : kDevicesPerNode;
    job.created = absl::FromUnixSeconds(1600000000) + absl::Seconds(n);
    job.phase = api::PodGroupPhase::kRunning;
    cache.UpsertPodGroup(job);
    for (int d = 0; d < kDevicesPerNode; ++d) {
      const std::string name = absl::StrCat(job.name, "-", d);
      api::ResourceClaim c = Claim(job.ns, name + "-gpu", 1, {});
      api::DeviceAllocation a;
      a.node = NodeName(n);
      a.results.push_back(
          {"gpu", kDriver, NodeName(n), absl::StrCat("gpu-", d)});
      c.allocation = std::move(a);
      c.reserved_for = {{"pods", name, "uid-" + name}};
      cache.UpsertResourceClaim(std::move(c));
      auto pod = Pod(job.ns, name, job.name, name + "-gpu");
      pod->priority = kLowPriority;
      pod->created = job.created;
      pod->node_name = NodeName(n);
      pod->status = api::TaskStatus::kRunning;
      cache.UpsertPod(std::move(pod), true);
    }
  }
}

}  // namespace

std::string NodeName(int i) { return absl::StrCat("node-", i); }

bool IsA100(int device) { return device < kDevicesPerNode / 2; }

bool AsksWhole(int gang) { return gang % 2 == 0; }

int PodIndex(const std::string& pod_name) {
  return std::stoi(pod_name.substr(pod_name.rfind('-') + 1));
}

int GangIndex(const std::string& job_name) {
  return std::stoi(job_name.substr(job_name.rfind('-') + 1));
}

std::vector<api::ResourceSlice> SlicesOf(DraScenario scenario, int node) {
  if (scenario != DraScenario::kPartitions) {
    return {ModelSlice(node, scenario == DraScenario::kShared)};
  }
  api::ResourceSlice counters = SliceHeader(node, "-counters");
  api::ResourceSlice devices = SliceHeader(node, "");
  counters.slice_count = devices.slice_count = 2;
  for (int g = 0; g < kDevicesPerNode; ++g) {
    counters.shared_counters.push_back(
        {absl::StrCat("gpu-", g, "-counters"),
         {{"memory", absl::StrCat(10 * kPartitionsPerGpu, "Gi")},
          {"slices", absl::StrCat(kPartitionsPerGpu)}}});
    devices.devices.push_back(Partition(g, absl::StrCat("gpu-", g),
                                        kWholeProfile, kPartitionsPerGpu));
    for (int p = 0; p < kPartitionsPerGpu; ++p) {
      devices.devices.push_back(Partition(
          g, absl::StrCat("gpu-", g, "-mig-", p), kPartitionProfile, 1));
    }
  }
  return {std::move(counters), std::move(devices)};
}

void BuildDraCluster(const DraWorld& world, cache::Cache& cache) {
  AddPlainNodes(kNodes, cache);
  api::QueueInfo queue;
  queue.name = "default";
  if (world.quota) {
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
  for (int n = 0; n < kNodes; ++n) {
    for (api::ResourceSlice& s : SlicesOf(world.scenario, n))
      cache.UpsertResourceSlice(std::move(s));
  }
  if (world.full) AddHolders(cache);
  if (world.held) AddLowPriorityJobs(cache);
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
      if (world.scenario == DraScenario::kPartitions) {
        selectors.push_back(Selector(
            "profile", AsksWhole(g) ? kWholeProfile : kPartitionProfile));
      } else if (p % 2 == 0) {
        selectors.push_back(Selector("model", "a100"));
      }
      api::ResourceClaim c =
          Claim(job.ns, name + "-gpu", 1, std::move(selectors));
      if (world.scenario == DraScenario::kShared) {
        c.requests[0].choices[0].capacity_requests = {
            {"memory", kShareRequest}};
      }
      cache.UpsertResourceClaim(std::move(c));
      auto pod = Pod(job.ns, name, job.name, name + "-gpu");
      if (world.held) pod->priority = kHighPriority;
      cache.UpsertPod(std::move(pod), true);
    }
  }
}

}  // namespace shoal::bench
