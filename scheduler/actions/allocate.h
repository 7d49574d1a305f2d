// allocate: places pending tasks, queue by queue and job by job in the
// tiers' order, on the best-scoring feasible node; a gang's placements
// commit only together (see allocate.cc).
#ifndef SHOAL_SCHEDULER_ACTIONS_ALLOCATE_H_
#define SHOAL_SCHEDULER_ACTIONS_ALLOCATE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "scheduler/framework/action.h"
#include "scheduler/framework/arguments.h"

namespace shoal::actions {

absl::StatusOr<std::unique_ptr<framework::Action>> NewAllocate(
    const framework::Arguments& args);

}  // namespace shoal::actions

#endif  // SHOAL_SCHEDULER_ACTIONS_ALLOCATE_H_
