// A policy of the admin service's own, built from the scheduler's
// configuration: no call ever runs a session on the scheduler's Policy.
#ifndef SHOAL_SCHEDULER_ADMIN_OWN_POLICY_H_
#define SHOAL_SCHEDULER_ADMIN_OWN_POLICY_H_

#include "absl/status/statusor.h"
#include "plugins/builtin.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/framework/config.h"
#include "scheduler/framework/policy.h"

namespace shoal::admin {

inline absl::StatusOr<framework::Policy> OwnPolicy(
    const framework::SchedulerConfig& config) {
  return framework::BuildPolicy(config, plugins::BuiltinPlugins(),
                                actions::BuiltinActions());
}

}  // namespace shoal::admin

#endif  // SHOAL_SCHEDULER_ADMIN_OWN_POLICY_H_
