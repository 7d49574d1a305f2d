#include "scheduler/framework/room_promises.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"

namespace shoal::framework {

std::vector<std::vector<HeldRoom>> RoomPromises::Hold(
    const api::ClusterInfo& cluster) {
  std::vector<std::vector<HeldRoom>> by_node;
  if (promises_.empty()) return by_node;
  absl::flat_hash_map<std::string, api::JobIndex> waiting;
  for (const api::JobInfo& job : cluster.jobs) {
    if (job.PendingCount() > 0) waiting[job.Key()] = job.index;
  }
  std::vector<RoomPromise> kept;
  for (RoomPromise& p : promises_) {
    auto job = waiting.find(p.job);
    auto node = cluster.node_by_name.find(p.node);
    if (p.until < cluster.now || job == waiting.end() ||
        node == cluster.node_by_name.end()) {
      continue;
    }
    if (by_node.empty()) by_node.resize(cluster.nodes.size());
    by_node[node->second].push_back({job->second, p.room});
    kept.push_back(std::move(p));
  }
  promises_ = std::move(kept);
  return by_node;
}

}  // namespace shoal::framework
