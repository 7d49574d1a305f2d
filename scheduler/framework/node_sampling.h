// How many nodes a search for a place looks at: kube-scheduler's
// percentageOfNodesToScore. On a large cluster, scoring every node for
// every job makes a cycle grow with jobs x nodes; a search that stops once
// it has found enough nodes with room, starting where the previous search
// stopped, keeps each job's share of the work bounded and spreads the
// searches over the whole cluster.
//
// The rule is kube-scheduler's (pkg/scheduler/schedule_one.go,
// numFeasibleNodesToFind): on fewer than 100 nodes every node; otherwise
// the configured percentage of the nodes, or, when it is 0 (unset), 50%
// less one point per 125 nodes and never under 5%; and never fewer than
// 100 nodes. 100% means every node.
//
// Only how many nodes are *scored* changes: a search that has not found
// enough nodes with room goes on over the rest of the cluster, so a pod
// that fits anywhere is still placed.
#ifndef SHOAL_SCHEDULER_FRAMEWORK_NODE_SAMPLING_H_
#define SHOAL_SCHEDULER_FRAMEWORK_NODE_SAMPLING_H_

#include <cstddef>

#include "scheduler/api/cluster_info.h"

namespace shoal::framework {

// kube-scheduler's constants (minFeasibleNodesToFind and
// minFeasibleNodesPercentageToFind).
inline constexpr size_t kMinNodesToFind = 100;
inline constexpr int kMinPercentageOfNodesToFind = 5;

// The number of nodes with room a search stops at, on a cluster of
// `all_nodes`; `percentage` is percentageOfNodesToScore, 0 for the
// adaptive default. Equal to `all_nodes` when nothing is left out.
size_t NodesToFind(int percentage, size_t all_nodes);

// One cycle's searches: how many nodes each looks for and where the next
// one starts. The start moves on by the nodes each search visited, as
// kube-scheduler's nextStartNodeIndex does; it begins at the first node
// every cycle, so a replay of the same snapshot decides the same.
class NodeSampling {
 public:
  NodeSampling(int percentage, size_t all_nodes)
      : nodes_(all_nodes), to_find_(NodesToFind(percentage, all_nodes)) {}

  size_t to_find() const { return to_find_; }
  // Whether searches leave nodes out at all.
  bool samples() const { return to_find_ < nodes_; }
  // The node the next search starts at (or the first feasible one after).
  api::NodeIndex next_start() const { return next_start_; }
  // A search visited nodes up to `last`: the next one starts after it.
  void VisitedUpTo(api::NodeIndex last) {
    next_start_ = nodes_ == 0 ? 0
                              : static_cast<api::NodeIndex>(
                                    (static_cast<size_t>(last) + 1) % nodes_);
  }

 private:
  size_t nodes_;
  size_t to_find_;
  api::NodeIndex next_start_ = 0;
};

}  // namespace shoal::framework

#endif  // SHOAL_SCHEDULER_FRAMEWORK_NODE_SAMPLING_H_
