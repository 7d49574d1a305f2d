// Why one pending pod can or cannot go to each node: the filters' verdicts
// in kube-scheduler's words and, for the nodes that pass, the scores
// kube-scheduler's plugins would give before they normalize them. What the
// first cycle on the snapshot sees before any action places anything.
#ifndef SHOAL_SCHEDULER_ADMIN_EXPLAIN_H_
#define SHOAL_SCHEDULER_ADMIN_EXPLAIN_H_

#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "scheduler/api/cluster_info.h"
#include "scheduler/framework/policy.h"

namespace shoal {

// {"pod", "available": "0/3 nodes are available: ...", "podReason" (when
// the pod may not be placed at all), "nodes": [{"node", "feasible",
// "reasons", "scores": {plugin: raw}, "ignored": [plugin]}]}.
// NotFound when `pod_key` (namespace/name) is no pending pod of Shoal's.
absl::StatusOr<nlohmann::json> ExplainPod(api::ClusterInfo cluster,
                                          framework::Policy& policy,
                                          const std::string& pod_key);

// The same as a kubectl-like table.
std::string ExplainText(const nlohmann::json& explained);

}  // namespace shoal

#endif  // SHOAL_SCHEDULER_ADMIN_EXPLAIN_H_
