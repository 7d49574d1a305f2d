// What a PodGroup's status and a waiting pod's PodScheduled condition
// should say after a cycle, computed from the session's verdict and what
// the API server shows now (so that unchanged conditions keep their
// lastTransitionTime, other writers' conditions survive, and an
// unchanged status is recognised and not written again).
#ifndef SHOAL_SCHEDULER_KUBE_WRITE_POD_GROUP_STATUS_H_
#define SHOAL_SCHEDULER_KUBE_WRITE_POD_GROUP_STATUS_H_

#include <string>

#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "scheduler/api/job_info.h"

namespace shoal::kube {

// The PodGroup `status` Shoal wants, given the `observed` one (may be
// null). Volcano's shape (phase, running/succeeded/failed, conditions
// Scheduled/Unschedulable, and Shoal's elasticTarget) or
// scheduler-plugins' (phase, scheduled/running/succeeded/failed).
nlohmann::json DesiredPodGroupStatus(const api::JobInfo& job,
                                     const nlohmann::json& observed,
                                     absl::Time now);

// Why a task that is still pending waits, as users should read it on the
// pod; empty when the session said nothing.
std::string PendingReason(const api::JobInfo& job);

// The PodScheduled=False condition for that reason.
nlohmann::json UnschedulableCondition(const std::string& message,
                                      const nlohmann::json& observed,
                                      absl::Time now);

// Every field `desired` sets is already so in `observed`.
bool AlreadySays(const nlohmann::json& observed, const nlohmann::json& desired);

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_WRITE_POD_GROUP_STATUS_H_
