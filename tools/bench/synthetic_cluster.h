// A large, realistic synthetic cluster for benchmarks: CPU and GPU node
// pools (GPU nodes tainted and labelled), zones, and gangs of mixed
// cpu-, memory- and GPU-heavy pods, some pinned by nodeSelector, some
// (as asked) with anti-affinity, spread constraints or host ports. Same
// seed, same cluster.
#ifndef SHOAL_TOOLS_BENCH_SYNTHETIC_CLUSTER_H_
#define SHOAL_TOOLS_BENCH_SYNTHETIC_CLUSTER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "scheduler/cache/cache.h"

namespace shoal::bench {

struct SyntheticClusterSpec {
  int nodes = 5000;
  double gpu_node_fraction = 0.2;
  int gangs = 1000;
  int pods_per_gang = 50;
  int queues = 1;
  uint64_t seed = 42;
  // Gangs whose pods carry inter-pod rules: required anti-affinity to
  // their own pods on the hostname (one per node), and a DoNotSchedule
  // spread over zones (maxSkew 1); and gangs whose pods bind a host port.
  double anti_affinity_fraction = 0;
  double spread_fraction = 0;
  double host_port_fraction = 0;
};

// Fills `cache` (scheduler name "shoal") with the cluster.
void BuildSyntheticCluster(const SyntheticClusterSpec& spec,
                           cache::Cache& cache);

// A full cluster for reclaim: `nodes` 64-cpu nodes entirely held by
// elastic jobs (minMember 10 of 100 pods, 16 cpu each) of `lenders`
// queues, while `starving` other queues each wait with 5 gangs of 50.
void BuildReclaimHeavyCluster(int nodes, int lenders, int starving,
                              cache::Cache& cache);

// `count` nodes node-0, node-1, ... of 64 cpu, 256Gi and 110 pods.
void AddPlainNodes(int count, cache::Cache& cache);

// A PodGroup named `name` in namespace and queue `queue` with `pods`
// pods alike, each asking `request` with no placement constraint: pod p
// runs on node `node_of(p)`, or waits when that is empty.
struct UniformJob {
  std::string queue;
  std::string name;
  int min_member = 1;
  int pods = 1;
  api::Resource request;
  absl::Time created;
  api::PodGroupPhase phase = api::PodGroupPhase::kPending;
  api::NetworkConstraint network;
  // spec.subGroupPolicy; with `replicas` > 0 the pods are labelled
  // replica=0..replicas-1 in equal runs, for policies keyed on it.
  std::vector<api::SubGroupPolicy> sub_group_policies;
  int replicas = 0;
  // A scheduling.k8s.io PodGroup under this CompositePodGroup (a leaf of
  // a tree, scheduler/cache/composite_jobs.h); "" for a Volcano PodGroup.
  std::string parent_group;
};
void AddUniformJob(const UniformJob& spec,
                   const std::function<std::string(int pod)>& node_of,
                   cache::Cache& cache);

}  // namespace shoal::bench

#endif  // SHOAL_TOOLS_BENCH_SYNTHETIC_CLUSTER_H_
