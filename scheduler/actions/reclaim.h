// reclaim: a queue below its deserved share takes back room lent to
// queues above theirs (see reclaim.cc); evictions stand only if the
// taker's gang is then complete.
#ifndef SHOAL_SCHEDULER_ACTIONS_RECLAIM_H_
#define SHOAL_SCHEDULER_ACTIONS_RECLAIM_H_

#include <memory>

#include "absl/status/statusor.h"
#include "scheduler/framework/action.h"
#include "scheduler/framework/arguments.h"

namespace shoal::actions {

absl::StatusOr<std::unique_ptr<framework::Action>> NewReclaim(
    const framework::Arguments& args);

}  // namespace shoal::actions

#endif  // SHOAL_SCHEDULER_ACTIONS_RECLAIM_H_
