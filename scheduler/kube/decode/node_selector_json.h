// Node selectors as the API writes them (nodeSelectorTerms, matchFields,
// matchExpressions): for snapshot files and for the nodeSelector of a
// claim's allocation.
#ifndef SHOAL_SCHEDULER_KUBE_DECODE_NODE_SELECTOR_JSON_H_
#define SHOAL_SCHEDULER_KUBE_DECODE_NODE_SELECTOR_JSON_H_

#include <vector>

#include "nlohmann/json.hpp"
#include "scheduler/api/placement.h"

namespace shoal::kube {

nlohmann::json Requirements(
    const std::vector<api::NodeSelectorRequirement>& list);
nlohmann::json Term(const api::NodeSelectorTerm& term);
nlohmann::json Terms(const std::vector<api::NodeSelectorTerm>& terms);

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_DECODE_NODE_SELECTOR_JSON_H_
