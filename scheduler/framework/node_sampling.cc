#include "scheduler/framework/node_sampling.h"

#include <algorithm>

namespace shoal::framework {

size_t NodesToFind(int percentage, size_t all_nodes) {
  if (all_nodes < kMinNodesToFind || percentage >= 100) return all_nodes;
  // Integer arithmetic throughout, as kube-scheduler's, so that both pick
  // the same count for the same cluster.
  int64_t p = percentage;
  if (p <= 0) {
    p = std::max<int64_t>(50 - static_cast<int64_t>(all_nodes) / 125,
                          kMinPercentageOfNodesToFind);
  }
  const size_t n =
      static_cast<size_t>(static_cast<int64_t>(all_nodes) * p / 100);
  return std::min(all_nodes, std::max(n, kMinNodesToFind));
}

}  // namespace shoal::framework
