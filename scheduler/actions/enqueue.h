// enqueue: admits PodGroups (Pending -> Inqueue) that the JobEnqueueable
// votes allow, so that only admitted work competes for nodes.
#ifndef SHOAL_SCHEDULER_ACTIONS_ENQUEUE_H_
#define SHOAL_SCHEDULER_ACTIONS_ENQUEUE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "scheduler/framework/action.h"
#include "scheduler/framework/arguments.h"

namespace shoal::actions {

absl::StatusOr<std::unique_ptr<framework::Action>> NewEnqueue(
    const framework::Arguments& args);

}  // namespace shoal::actions

#endif  // SHOAL_SCHEDULER_ACTIONS_ENQUEUE_H_
