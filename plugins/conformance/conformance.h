// Keeps the scheduler from evicting what the cluster itself needs: pods in
// kube-system and pods of the system-*-critical priority classes.
#ifndef SHOAL_PLUGINS_CONFORMANCE_CONFORMANCE_H_
#define SHOAL_PLUGINS_CONFORMANCE_CONFORMANCE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "scheduler/framework/arguments.h"
#include "scheduler/framework/plugin.h"

namespace shoal::plugins::conformance {

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments& args);

}  // namespace shoal::plugins::conformance

#endif  // SHOAL_PLUGINS_CONFORMANCE_CONFORMANCE_H_
