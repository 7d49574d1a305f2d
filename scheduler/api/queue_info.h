// A Volcano Queue: a tenant's share of the cluster.
#ifndef SHOAL_SCHEDULER_API_QUEUE_INFO_H_
#define SHOAL_SCHEDULER_API_QUEUE_INFO_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/api/resource.h"
#include "scheduler/api/task_info.h"

namespace shoal::api {

struct QueueInfo {
  std::string name;
  // Position in ClusterInfo::queues, set once when the snapshot is built
  // (ClusterBuilder::AddQueue); kNone outside a cluster.
  int32_t index = kNone;
  int32_t weight = 1;
  // spec.priority: a higher-priority queue goes first, and reclaim takes
  // from lower-priority queues first.
  int32_t priority = 0;
  // Hard upper bound; resources it does not name are kUnlimited.
  std::optional<Resource> capability;
  Resource guarantee;  // never shrunk below this
  // spec.deserved, when given; resources it does not name are kUnlimited.
  std::optional<Resource> deserved;
  // When the Queue was decoded, "unlimited" was spelled out for the
  // resource names known then; a name first seen later (the first GPU
  // node listed after the Queue, a device class counted when a session
  // opens) is one it cannot have named, so it is unlimited too, not 0.
  void UnlimitNamesSeenSince() {
    for (std::optional<Resource>* limit : {&capability, &deserved}) {
      if (!limit->has_value()) continue;
      for (auto id = static_cast<ResourceId>((*limit)->size());
           id < ResourceNameCount(); ++id) {
        (*limit)->Set(id, kUnlimited);
      }
    }
  }
  bool reclaimable = true;
  bool open = true;  // status.state/spec.state Open; Closed admits nothing
  // True for the implicit `default` queue when no Queue object exists
  // (and the implicit `root`, queue_tree.h).
  bool implicit = false;
  // spec.parent: the queue this one sits under; empty for a top-level
  // queue (under `root` when the cluster has one).
  std::string parent;

  // The tree, linked by LinkQueueTree when the snapshot is built: the
  // parent's position (kNone at the top), the children's, the depth (0 at
  // the top), and why this queue's place cannot be honoured (its jobs
  // wait with that message).
  int32_t parent_index = kNone;
  std::vector<int32_t> children;
  int32_t depth = 0;
  std::string tree_error;

  // Written during a session by the plugin that divides the cluster
  // between queues (proportion), for the admin service and the metrics:
  // what the queue deserves now, holds, and asks for (held plus what its
  // jobs still want), and its share (held / deserved, the dominant
  // resource). `standing_known` is false under a policy without one.
  bool standing_known = false;
  Resource deserved_now;
  Resource allocated;
  Resource request;
  double share = 0;
  bool overused = false;
};

}  // namespace shoal::api

#endif  // SHOAL_SCHEDULER_API_QUEUE_INFO_H_
