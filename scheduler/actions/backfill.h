// backfill: places BestEffort pods (no resource requests), which allocate
// leaves alone, on the best node with a free pod slot; a gang of them
// still commits all together or not at all.
#ifndef SHOAL_SCHEDULER_ACTIONS_BACKFILL_H_
#define SHOAL_SCHEDULER_ACTIONS_BACKFILL_H_

#include <memory>

#include "absl/status/statusor.h"
#include "scheduler/framework/action.h"
#include "scheduler/framework/arguments.h"

namespace shoal::actions {

absl::StatusOr<std::unique_ptr<framework::Action>> NewBackfill(
    const framework::Arguments& args);

}  // namespace shoal::actions

#endif  // SHOAL_SCHEDULER_ACTIONS_BACKFILL_H_
