// Which nodes a pod may use: cordoned and NotReady nodes, taints and
// tolerations, nodeSelector and required node affinity (cached per set of
// constraints), and resource fit including extended resources and the
// node's pod count.
#ifndef SHOAL_PLUGINS_PREDICATES_PREDICATES_H_
#define SHOAL_PLUGINS_PREDICATES_PREDICATES_H_

#include <memory>

#include "absl/status/statusor.h"
#include "scheduler/framework/arguments.h"
#include "scheduler/framework/plugin.h"

namespace shoal::plugins::predicates {

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments& args);

}  // namespace shoal::plugins::predicates

#endif  // SHOAL_PLUGINS_PREDICATES_PREDICATES_H_
