// Volcano's queue hierarchy (Queue spec.parent) linked and checked once per
// snapshot, so that every plugin dividing the cluster between queues reads
// the same tree and no plugin can leave a parent's limits out.
//
// The tree's top is the Queue named `root`, as in Volcano. A snapshot in
// which some queue names a parent but no `root` Queue exists gets an
// implicit one, unlimited, as Volcano's controller would have created it.
// A snapshot where no queue names a parent and there is no `root` stays
// flat: every queue is a top-level queue.
#ifndef SHOAL_SCHEDULER_API_QUEUE_TREE_H_
#define SHOAL_SCHEDULER_API_QUEUE_TREE_H_

#include <string>

#include "scheduler/api/cluster_info.h"

namespace shoal::api {

inline constexpr char kRootQueue[] = "root";

// Sets each queue's parent_index, children, depth and tree_error.
//
// A queue whose place cannot be honoured gets tree_error, and so does
// every queue under it (the message names the queue at fault), so that
// their jobs wait rather than run outside limits that were meant to hold
// them: a parent that does not exist, a cycle of parents, children whose
// guarantees or deserved shares add up to more than their parent states.
// A child's capability above its parent's is not an error: the parent's
// bounds the child as well (Volcano's reading).
void LinkQueueTree(ClusterInfo& c);

// Why a job in queue `q` may not run there: the queue's tree_error, or
// that the queue has children (only leaf queues hold jobs). Empty when it
// may.
std::string QueuePlacementError(const ClusterInfo& c, int32_t q);

// Whether queue `q` is `ancestor` or sits anywhere below it.
bool InSubtree(const ClusterInfo& c, int32_t q, int32_t ancestor);

// Calls fn(queue) for `q` and each of its ancestors, leaf first.
template <typename Fn>
void ForEachOnPathToRoot(const ClusterInfo& c, int32_t q, Fn fn) {
  for (int32_t at = q; at != kNone; at = c.queues[at].parent_index) {
    fn(c.queues[at]);
  }
}

}  // namespace shoal::api

#endif  // SHOAL_SCHEDULER_API_QUEUE_TREE_H_
