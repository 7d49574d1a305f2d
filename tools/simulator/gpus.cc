#include "tools/simulator/gpus.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/api/quantity.h"
#include "tools/simulator/network.h"
#include "tools/simulator/report.h"

namespace shoal::sim {
namespace {

std::string Qualified(const std::string& name) {
  return absl::StrCat(kGpuDriver, "/", name);
}

api::DeviceAttribute Text(const std::string& s) {
  api::DeviceAttribute a;
  a.s = s;
  return a;
}

api::DeviceAttribute Number(int64_t i) {
  api::DeviceAttribute a;
  a.kind = api::DeviceAttribute::Kind::kInt;
  a.i = i;
  return a;
}

api::ResourceSlice Slice(const std::string& node, const std::string& suffix) {
  api::ResourceSlice s;
  s.name = absl::StrCat(node, "-", kGpuDriver, suffix);
  s.driver = kGpuDriver;
  s.pool = node;
  s.generation = 1;
  s.node_name = node;
  return s;
}

// GPU `g` whole, or its partition `part` of `parts` (spending its counter
// set when the GPU is partitioned).
api::Device GpuDevice(const GpuSpec& spec, int g, int part, int parts) {
  api::Device d;
  const bool whole = part < 0;
  d.name =
      whole ? absl::StrCat("gpu-", g) : absl::StrCat("gpu-", g, "-part-", part);
  d.attributes = {{Qualified("kind"), Text(whole ? "whole" : "partition")},
                  {Qualified("gpu"), Number(g)}};
  const std::string memory =
      whole ? spec.memory : absl::StrCat(spec.memory_bytes / parts);
  d.capacity = {{Qualified("memory"), memory, "memory", {}}};
  if (parts > 0) {
    d.consumes_counters = {
        {absl::StrCat("gpu-", g),
         {{"memory", memory}, {"slices", absl::StrCat(whole ? parts : 1)}}}};
  }
  return d;
}

std::string KindSelector(const std::string& kind) {
  return absl::StrCat("device.attributes['", kGpuDriver, "'].kind == '", kind,
                      "'");
}

int64_t Bytes(const std::string& quantity) {
  auto b = api::ParseQuantity(quantity, api::QuantityScale::kUnit);
  return b.ok() ? *b : 0;
}

std::pair<double, double> MeanP05(std::vector<double> v) {
  if (v.empty()) return {0, 0};
  double sum = 0;
  for (double x : v) sum += x;
  std::sort(v.begin(), v.end());
  return {sum / v.size(), v[static_cast<size_t>(0.05 * (v.size() - 1))]};
}

}  // namespace

Gpus::Gpus(const Scenario& sc, bool sharing) : sharing_(sharing) {
  for (const NodePool& pool : sc.pools) {
    if (pool.gpus.count == 0) continue;
    const GpuSpec& spec = pool.gpus;
    const int parts = sharing ? spec.partitions : 0;
    for (int i = 0; i < pool.count; ++i) {
      const std::string node = NodeName(pool, i);
      api::ResourceSlice devices = Slice(node, "");
      api::ResourceSlice counters = Slice(node, "-counters");
      for (int g = 0; g < spec.count; ++g) {
        const std::string gpu = absl::StrCat(node, "/gpu-", g);
        api::Device whole = GpuDevice(spec, g, -1, parts);
        whole.allow_multiple_allocations = sharing && spec.share;
        devices_[absl::StrCat(node, "/", whole.name)] = {gpu,
                                                         spec.memory_bytes};
        devices.devices.push_back(std::move(whole));
        for (int p = 0; p < parts; ++p) {
          api::Device part = GpuDevice(spec, g, p, parts);
          devices_[absl::StrCat(node, "/", part.name)] = {
              gpu, spec.memory_bytes / parts};
          devices.devices.push_back(std::move(part));
        }
        if (parts > 0) {
          counters.shared_counters.push_back(
              {absl::StrCat("gpu-", g),
               {{"memory", spec.memory}, {"slices", absl::StrCat(parts)}}});
        }
        ++gpus_;
        memory_total_ += spec.memory_bytes;
      }
      if (parts > 0) {
        devices.slice_count = counters.slice_count = 2;
        slices_.push_back(std::move(counters));
      }
      slices_.push_back(std::move(devices));
    }
  }
}

void Gpus::Publish(cache::Cache& cache) const {
  if (empty()) return;
  api::DeviceClass cls;
  cls.name = kGpuDriver;
  cls.selectors = {absl::StrCat("device.driver == '", kGpuDriver, "'")};
  cache.UpsertDeviceClass(cls);
  for (const api::ResourceSlice& s : slices_) cache.UpsertResourceSlice(s);
}

void Gpus::CreateClaim(api::PodInfo& pod, const GpuAsk& ask,
                       cache::Cache& cache) {
  if (ask.kind == GpuAsk::Kind::kNone) return;
  api::ResourceClaim c;
  c.ns = pod.ns;
  c.name = pod.name + "-gpu";
  c.uid = "claim-" + pod.uid;
  c.resource_version = absl::StrCat(++version_);
  c.owner_uid = pod.uid;
  api::DeviceChoice choice;
  choice.name = "gpu";
  choice.device_class = kGpuDriver;
  choice.count = ask.kind == GpuAsk::Kind::kShare ? 1 : ask.count;
  // Without sharing there are no partitions: a partition ask takes a GPU.
  const bool partition = ask.kind == GpuAsk::Kind::kPartition && sharing_;
  choice.selectors = {KindSelector(partition ? "partition" : "whole")};
  if (ask.kind == GpuAsk::Kind::kShare)
    choice.capacity_requests = {{"memory", ask.memory}};
  api::DeviceRequest request;
  request.name = "gpu";
  request.choices = {std::move(choice)};
  c.requests = {std::move(request)};
  // As the resourceclaim controller records it for a template's claim.
  pod.resource_claims = {{"gpu", c.name, "gpu"}};
  claim_of_pod_[pod.Key()] = c.Key();
  cache.UpsertResourceClaim(c);
  claims_[c.Key()] = std::move(c);
}

void Gpus::DeleteClaim(const std::string& pod_key, cache::Cache& cache) {
  auto it = claim_of_pod_.find(pod_key);
  if (it == claim_of_pod_.end()) return;
  claims_.erase(it->second);
  cache.DeleteResourceClaim(it->second);
  claim_of_pod_.erase(it);
}

absl::Status Gpus::Write(const std::vector<api::ClaimWrite>& writes,
                         cache::Cache& cache) {
  for (const api::ClaimWrite& w : writes) {
    auto it = claims_.find(w.Key());
    if (it == claims_.end() || it->second.uid != w.uid) {
      return absl::NotFoundError(
          absl::StrCat("resourceclaim ", w.Key(), " not found"));
    }
    api::ResourceClaim& c = it->second;
    if (w.follows) {
      // Another pod's write of this cycle made the allocation.
      if (!c.allocation.has_value() ||
          c.allocation->results != w.allocation.results) {
        return absl::AbortedError(
            absl::StrCat("resourceclaim ", w.Key(),
                         ": the allocation to follow is not "
                         "there"));
      }
    } else {
      if (!w.resource_version.empty() &&
          w.resource_version != c.resource_version) {
        return absl::AbortedError(absl::StrCat(
            "resourceclaim ", w.Key(), ": resourceVersion ", w.resource_version,
            " is stale (now ", c.resource_version, ")"));
      }
      if (w.newly_allocated) {
        if (c.allocation.has_value()) {
          return absl::AbortedError(
              absl::StrCat("resourceclaim ", w.Key(), " is allocated already"));
        }
        c.allocation = w.allocation;
      }
    }
    c.reserved_for = w.reserved_for;
    c.resource_version = absl::StrCat(++version_);
    cache.UpsertResourceClaim(c);
  }
  return absl::OkStatus();
}

GpuUse Gpus::Measure() {
  GpuUse use;
  if (empty()) return use;
  int64_t allocated = 0, asked = 0;
  std::map<std::string, int> claims_on;  // by GPU
  for (const auto& [key, c] : claims_) {
    if (!c.allocation.has_value()) continue;
    int64_t ask = -1;
    for (const auto& [name, q] : c.requests[0].choices[0].capacity_requests)
      if (name == "memory") ask = Bytes(q);
    std::set<std::string> gpus;
    for (const api::DeviceResult& r : c.allocation->results) {
      auto d = devices_.find(absl::StrCat(r.pool, "/", r.device));
      if (d == devices_.end()) continue;
      int64_t held = d->second.memory;
      for (const auto& [name, q] : r.consumed_capacity)
        if (name == "memory") held = Bytes(q);
      allocated += held;
      asked += ask >= 0 ? std::min(ask, held) : held;
      gpus.insert(d->second.gpu);
    }
    for (const std::string& g : gpus) ++claims_on[g];
  }
  use.memory_allocated = static_cast<double>(allocated) / memory_total_;
  use.memory_asked = static_cast<double>(asked) / memory_total_;
  use.busy = static_cast<double>(claims_on.size()) / gpus_;
  for (const auto& [gpu, n] : claims_on)
    use.most_claims_on_a_gpu = std::max(use.most_claims_on_a_gpu, n);
  allocated_.push_back(use.memory_allocated);
  asked_.push_back(use.memory_asked);
  busy_.push_back(use.busy);
  most_claims_on_a_gpu_ =
      std::max(most_claims_on_a_gpu_, use.most_claims_on_a_gpu);
  return use;
}

nlohmann::ordered_json Gpus::Summary() const {
  auto [allocated, allocated_p05] = MeanP05(allocated_);
  auto [asked, asked_p05] = MeanP05(asked_);
  auto [busy, busy_p05] = MeanP05(busy_);
  return {{"count", gpus_},
          {"memoryBytes", memory_total_},
          {"sharing", sharing_},
          {"memoryAllocated",
           {{"mean", Round(allocated)}, {"p05", Round(allocated_p05)}}},
          {"memoryAsked", {{"mean", Round(asked)}, {"p05", Round(asked_p05)}}},
          {"busy", {{"mean", Round(busy)}, {"p05", Round(busy_p05)}}},
          {"mostClaimsOnAGpu", most_claims_on_a_gpu_}};
}

}  // namespace shoal::sim
