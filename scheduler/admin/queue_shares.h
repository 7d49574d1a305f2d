// Each queue's deserved share, allocation and share of it, computed from
// a cluster picture the way plugins/proportion computes them when a
// session opens (weighted water-filling capped by capability and demand,
// floored at the guarantee). The plugin keeps these numbers private to its
// session, so the admin service recomputes them here; keep the two in step.
#ifndef SHOAL_SCHEDULER_ADMIN_QUEUE_SHARES_H_
#define SHOAL_SCHEDULER_ADMIN_QUEUE_SHARES_H_

#include <vector>

#include "scheduler/api/cluster_info.h"

namespace shoal::admin {

struct QueueShare {
  api::Resource deserved;
  api::Resource allocated;        // held by the queue's tasks
  api::Resource request;          // allocated + what its jobs still ask for
  api::Resource real_capability;  // capability, less others' guarantees
  double share = 0;               // allocated / deserved, dominant resource
};

// One entry per cluster.queues, same order.
std::vector<QueueShare> ComputeQueueShares(const api::ClusterInfo& c);

}  // namespace shoal::admin

#endif  // SHOAL_SCHEDULER_ADMIN_QUEUE_SHARES_H_
