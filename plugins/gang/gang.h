// Gang scheduling: a job runs only when at least minMember of its pods (and
// minTaskMember of each role) can run together.
#ifndef SHOAL_PLUGINS_GANG_GANG_H_
#define SHOAL_PLUGINS_GANG_GANG_H_

#include <memory>

#include "absl/status/statusor.h"
#include "scheduler/framework/arguments.h"
#include "scheduler/framework/plugin.h"

namespace shoal::plugins::gang {

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments& args);

}  // namespace shoal::plugins::gang

#endif  // SHOAL_PLUGINS_GANG_GANG_H_
