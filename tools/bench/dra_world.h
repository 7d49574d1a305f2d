// The clusters of dra_bench: 1,000 nodes, each with one pool of 8 GPUs
// of driver gpu.example.com, one DeviceClass selecting the driver, and
// 2,000 pending pods in 250 gangs of 8, each pod with its own claim of
// one device of the class.
//
// kModels: one slice per node, gpu-0..3 a100 and gpu-4..7 h100; even pods
// ask for an a100 by a request selector. With `full`, 6,996 devices are
// held by the claims of running pods (one per node, of its 8 devices or,
// on the first kNodesWithRoom nodes, of its 4 h100s), leaving 1,004 a100s;
// with `quota`, the queue's capability names the class (2,000).
//
// kPartitions: partitionable GPUs, as a MIG-capable driver publishes them
// since Kubernetes 1.35. Each node's pool is two slices
// (resourceSliceCount 2): one with the counter sets only, one per GPU
// (gpu-<g>-counters: memory 70Gi, slices 7), and one with 64 devices: per
// GPU the whole device gpu-<g> (profile 7g.70gb, consuming all of its set)
// and its 7 partitions gpu-<g>-mig-<p> (profile 1g.10gb, 10Gi and one
// slice each). Even gangs ask for whole GPUs, odd gangs for partitions,
// by a selector on the profile.
//
// kShared: kModels' GPUs allowing multiple allocations, memory 80Gi
// each; every claim asks for 20Gi (4 claims fill a GPU).
//
// kModels with `held` (for preempt): all 8,000 devices held by running
// jobs of priority kLowPriority in namespace kLowNamespace, one per node:
// low-<n>, 8 pods low-<n>-<d> each with its own claim of GPU gpu-<d> of
// node-<n> (allocated, reserved for the pod). On the first
// kElasticHolderNodes nodes the job is elastic (minMember
// kElasticMinMember: 4 pods to spare), elsewhere a gang (minMember 8).
// The pending pods have priority kHighPriority.
#ifndef SHOAL_TOOLS_BENCH_DRA_WORLD_H_
#define SHOAL_TOOLS_BENCH_DRA_WORLD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "scheduler/api/devices.h"
#include "scheduler/cache/cache.h"

namespace shoal::bench {

inline constexpr char kDriver[] = "gpu.example.com";
inline constexpr int kNodes = 1000;
inline constexpr int kDevicesPerNode = 8;  // GPUs
inline constexpr int kGangs = 250;
inline constexpr int kPodsPerGang = 8;
// In kModels with `full`, nodes below this keep their a100s free (1,004
// devices: room for 125 gangs and half of a 126th); every other device
// is held.
inline constexpr int kNodesWithRoom = 251;
// kModels with `held`: the running low-priority jobs.
inline constexpr char kLowNamespace[] = "low";
inline constexpr int kElasticHolderNodes = 250;
inline constexpr int kElasticMinMember = 4;
inline constexpr int32_t kLowPriority = 1;
inline constexpr int32_t kHighPriority = 1000;
// kPartitions: partitions per GPU, and the profiles.
inline constexpr int kPartitionsPerGpu = 7;
inline constexpr char kWholeProfile[] = "7g.70gb";
inline constexpr char kPartitionProfile[] = "1g.10gb";
// kShared: a GPU's memory and what each claim asks of it.
inline constexpr char kSharedMemory[] = "80Gi";
inline constexpr char kShareRequest[] = "20Gi";

enum class DraScenario { kModels, kPartitions, kShared };

struct DraWorld {
  DraScenario scenario = DraScenario::kModels;
  bool full = false;   // kModels only
  bool quota = false;  // kModels only
  bool held = false;   // kModels only
};

std::string NodeName(int i);
// kModels and kShared: gpu-0..3 are a100, gpu-4..7 h100.
bool IsA100(int device);
// kPartitions: whether gang `g`'s pods ask for whole GPUs.
bool AsksWhole(int gang);
// The pod's number within its gang, and the gang's (from "job-<g>").
int PodIndex(const std::string& pod_name);
int GangIndex(const std::string& job_name);

// Node `node`'s slices in the scenario (kPartitions: the counter slice,
// then the devices' slice).
std::vector<api::ResourceSlice> SlicesOf(DraScenario scenario, int node);

// Fills `cache` (scheduler name "shoal").
void BuildDraCluster(const DraWorld& world, cache::Cache& cache);

}  // namespace shoal::bench

#endif  // SHOAL_TOOLS_BENCH_DRA_WORLD_H_
