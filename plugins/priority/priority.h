// PriorityClass order: higher-priority jobs and tasks first; lower-priority
// work may be preempted by higher.
#ifndef SHOAL_PLUGINS_PRIORITY_PRIORITY_H_
#define SHOAL_PLUGINS_PRIORITY_PRIORITY_H_

#include <memory>

#include "absl/status/statusor.h"
#include "scheduler/framework/arguments.h"
#include "scheduler/framework/plugin.h"

namespace shoal::plugins::priority {

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments& args);

}  // namespace shoal::plugins::priority

#endif  // SHOAL_PLUGINS_PRIORITY_PRIORITY_H_
