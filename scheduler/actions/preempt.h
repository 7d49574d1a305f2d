// preempt: inside a queue, a job whose gang is incomplete evicts lower-
// priority work (see preempt.cc); evictions stand only if the gang is then
// complete.
#ifndef SHOAL_SCHEDULER_ACTIONS_PREEMPT_H_
#define SHOAL_SCHEDULER_ACTIONS_PREEMPT_H_

#include <memory>

#include "absl/status/statusor.h"
#include "scheduler/framework/action.h"
#include "scheduler/framework/arguments.h"

namespace shoal::actions {

absl::StatusOr<std::unique_ptr<framework::Action>> NewPreempt(
    const framework::Arguments& args);

}  // namespace shoal::actions

#endif  // SHOAL_SCHEDULER_ACTIONS_PREEMPT_H_
