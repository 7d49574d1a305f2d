// Writes a cluster dump the size `kubectl get nodes,pods,podgroups,queues
// -A -o json` prints for a real cluster: the synthetic benchmark cluster
// (synthetic_cluster.h), each object dressed as the API server returns it
// — managedFields, resourceVersion, owner references, containers with
// image, command, args, env and mounts, the service-account and config
// volumes, the QoS class; nodes with the kubelet's managedFields, addresses,
// nodeInfo and their image list. Labels and annotations are left as they are:
// Shoal reads them.
//
// The dress adds only fields outside Shoal's model: the cluster read is
// the same (realistic_objects_test).
//
//   bazel run //tools/bench:realistic_snapshot -- --nodes=5000
//       --gangs=1000 --out=/tmp/cluster-5k.json   (one command)
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "scheduler/cache/cache.h"
#include "scheduler/kube/snapshot/snapshot_writer.h"
#include "tools/bench/realistic_objects.h"
#include "tools/bench/synthetic_cluster.h"

ABSL_FLAG(int, nodes, 5000, "Nodes in the cluster.");
ABSL_FLAG(int, gangs, 1000, "Gangs of pending pods.");
ABSL_FLAG(int, pods_per_gang, 50, "Pods in each gang.");
ABSL_FLAG(std::string, out, "", "Where to write the JSON dump.");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const std::string out = absl::GetFlag(FLAGS_out);
  if (out.empty()) {
    std::fprintf(stderr, "realistic_snapshot: --out=FILE is required\n");
    return 2;
  }
  shoal::bench::SyntheticClusterSpec spec;
  spec.nodes = absl::GetFlag(FLAGS_nodes);
  spec.gangs = absl::GetFlag(FLAGS_gangs);
  spec.pods_per_gang = absl::GetFlag(FLAGS_pods_per_gang);
  shoal::cache::Cache cache("shoal");
  shoal::bench::BuildSyntheticCluster(spec, cache);
  auto written = shoal::bench::WriteRealisticSnapshot(cache, out);
  if (!written.ok()) {
    std::fprintf(stderr, "realistic_snapshot: %s\n",
                 std::string(written.status().message()).c_str());
    return 1;
  }
  std::printf("%s: %d nodes, %d pods, %.0f MB\n", out.c_str(), spec.nodes,
              spec.gangs * spec.pods_per_gang, *written / 1e6);
  return 0;
}
