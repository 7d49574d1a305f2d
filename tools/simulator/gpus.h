// The simulated GPUs, published through Dynamic Resource Allocation the
// ways a Kubernetes 1.36 driver publishes them, and the world's side of
// their ResourceClaims: the simulator plays the drivers (ResourceSlices,
// one pool per node), the resourceclaim controller (a claim per pod,
// created with the pod and deleted when it ends) and the API server
// (a bind's claim writes, applied as status patches and seen by the
// cache as its watch would see them). Which devices a claim gets is
// Shoal's allocator's decision alone.
//
// Per node of a pool with `gpus` (scenario.h, GpuSpec), driver
// gpu.example.com, pool = the node's name:
//   * gpu-<g>: each GPU whole, attribute kind "whole", capacity memory;
//     with `share`, allowMultipleAllocations.
//   * with `partitions: N`: gpu-<g>-part-<p> (kind "partition", memory /
//     N each), and the counter set gpu-<g> {memory, slices: N} in a slice
//     of its own (resourceSliceCount 2), as since Kubernetes 1.35; the
//     whole GPU spends all of its set, a partition memory / N and 1 slice.
// One DeviceClass gpu.example.com selects the driver's devices.
#ifndef SHOAL_TOOLS_SIMULATOR_GPUS_H_
#define SHOAL_TOOLS_SIMULATOR_GPUS_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "nlohmann/json.hpp"
#include "scheduler/api/devices.h"
#include "scheduler/cache/cache.h"
#include "tools/simulator/scenario.h"

namespace shoal::sim {

inline constexpr char kGpuDriver[] = "gpu.example.com";

// What the claims hold at one moment, as fractions (-1: no GPUs).
struct GpuUse {
  // GPU memory allocated (a share counts what it consumes, a partition
  // its memory, a GPU given whole all of it) over all GPUs' memory.
  double memory_allocated = -1;
  // What the allocated claims asked (a share its memory ask, anything
  // else its devices' memory): below memory_allocated when GPUs are
  // given whole to pods that need part of one.
  double memory_asked = -1;
  // GPUs with any allocation (a partition's GPU included) over all GPUs.
  double busy = -1;
  int most_claims_on_a_gpu = 0;
};

class Gpus {
 public:
  // Without `sharing`, no GPU allows multiple allocations and none is
  // partitioned, and partition asks become whole-GPU asks: the same pods
  // on GPUs that are not shared.
  Gpus(const Scenario& sc, bool sharing);

  bool empty() const { return gpus_ == 0; }
  int count() const { return gpus_; }

  // The DeviceClass and every node's slices, into the cache.
  void Publish(cache::Cache& cache) const;
  // The resourceclaim controller: `pod`'s claim for `ask` (named
  // <pod>-gpu, owned by the pod), in the world and the cache, and the
  // pod's spec.resourceClaims entry naming it.
  void CreateClaim(api::PodInfo& pod, const GpuAsk& ask, cache::Cache& cache);
  // ... and the claim deleted once pod `pod_key` is gone (none: nothing).
  void DeleteClaim(const std::string& pod_key, cache::Cache& cache);
  // The API server's side of a bind's claim writes, in order (the status
  // patch kube-scheduler's PreBind sends: allocation when new, then
  // reservedFor), each shown to the cache once written. The first that
  // cannot be written (claim gone, resourceVersion stale, already
  // allocated) fails the bind.
  absl::Status Write(const std::vector<api::ClaimWrite>& writes,
                     cache::Cache& cache);

  // What the claims hold now; also recorded for Summary().
  GpuUse Measure();
  // summary.json's "gpus".
  nlohmann::ordered_json Summary() const;

  const std::vector<api::ResourceSlice>& slices() const { return slices_; }
  const std::map<std::string, api::ResourceClaim>& claims() const {
    return claims_;
  }

 private:
  struct DeviceInfo {
    std::string gpu;  // node/gpu-<g>: the physical GPU
    int64_t memory = 0;
  };

  bool sharing_;
  int gpus_ = 0;
  int64_t memory_total_ = 0;
  std::vector<api::ResourceSlice> slices_;
  std::map<std::string, DeviceInfo> devices_;  // by pool/device
  std::map<std::string, api::ResourceClaim> claims_;
  std::map<std::string, std::string> claim_of_pod_;  // pod key -> claim key
  int64_t version_ = 0;
  std::vector<double> allocated_, asked_, busy_;
  int most_claims_on_a_gpu_ = 0;
};

}  // namespace shoal::sim

#endif  // SHOAL_TOOLS_SIMULATOR_GPUS_H_
