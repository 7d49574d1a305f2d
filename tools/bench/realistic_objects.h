// Dresses the minimal objects Shoal's snapshot writer prints as the API
// server returns them (see realistic_snapshot.cc), and writes a whole
// cache as such a dump, one object at a time.
#ifndef SHOAL_TOOLS_BENCH_REALISTIC_OBJECTS_H_
#define SHOAL_TOOLS_BENCH_REALISTIC_OBJECTS_H_

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "scheduler/cache/cache.h"

namespace shoal::bench {

// Raised whenever the dress changes, so that dumps kept on disk by a
// benchmark (named after it) are written again rather than reused stale.
inline constexpr int kDressVersion = 2;

// Adds what a real Pod or Node carries; `n` makes names and uids differ. Fields
// already there are left alone. A pod gets the labels and annotations Volcano's
// job controller writes, naming `queue`; a node the kubelet's os and arch
// labels.
void DressPod(nlohmann::json& pod, uint64_t n, const std::string& queue);
void DressNode(nlohmann::json& node, uint64_t n);

// The queue of each PodGroup in a `kind: List`, by "namespace/name"; and
// the one a pod's group names ("default" when it has none).
absl::flat_hash_map<std::string, std::string> QueuesOfPodGroups(
    const nlohmann::json& list);
std::string QueueOfPod(
    const absl::flat_hash_map<std::string, std::string>& queues,
    const nlohmann::json& pod);

// Writes the cache as a `kind: List` JSON dump with dressed pods and
// nodes; returns the bytes written.
absl::StatusOr<uint64_t> WriteRealisticSnapshot(const cache::Cache& cache,
                                                const std::string& path);

}  // namespace shoal::bench

#endif  // SHOAL_TOOLS_BENCH_REALISTIC_OBJECTS_H_
