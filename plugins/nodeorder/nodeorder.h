// Node scores: least-requested (spread), most-requested, balanced
// resources, preferred node affinity and PreferNoSchedule taints, with
// weights from arguments. Registered also as Volcano's `binpack`, which
// reads binpack.* arguments and packs by per-resource weights.
#ifndef SHOAL_PLUGINS_NODEORDER_NODEORDER_H_
#define SHOAL_PLUGINS_NODEORDER_NODEORDER_H_

#include <memory>

#include "absl/status/statusor.h"
#include "scheduler/framework/arguments.h"
#include "scheduler/framework/plugin.h"

namespace shoal::plugins::nodeorder {

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments& args);

// The same scorer configured from Volcano's binpack arguments.
absl::StatusOr<std::unique_ptr<framework::Plugin>> NewBinpack(
    const framework::Arguments& args);

}  // namespace shoal::plugins::nodeorder

#endif  // SHOAL_PLUGINS_NODEORDER_NODEORDER_H_
