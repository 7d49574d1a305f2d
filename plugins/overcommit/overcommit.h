// Admission control: a PodGroup is admitted (Inqueue) only while the
// gang minimums already admitted plus its own fit the cluster's idle
// room times the overcommit factor.
#ifndef SHOAL_PLUGINS_OVERCOMMIT_OVERCOMMIT_H_
#define SHOAL_PLUGINS_OVERCOMMIT_OVERCOMMIT_H_

#include <memory>

#include "absl/status/statusor.h"
#include "scheduler/framework/arguments.h"
#include "scheduler/framework/plugin.h"

namespace shoal::plugins::overcommit {

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments& args);

}  // namespace shoal::plugins::overcommit

#endif  // SHOAL_PLUGINS_OVERCOMMIT_OVERCOMMIT_H_
