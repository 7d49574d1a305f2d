// Queue fair share: each queue's deserved share is found by weighted
// water-filling over the cluster, capped by its capability and its real
// demand, never below its guarantee. Orders queues by share, keeps a
// queue within its share (allocatable), marks overused queues, offers
// their surplus to reclaim, and refuses admission beyond a capability.
#ifndef SHOAL_PLUGINS_PROPORTION_PROPORTION_H_
#define SHOAL_PLUGINS_PROPORTION_PROPORTION_H_

#include <memory>

#include "absl/status/statusor.h"
#include "scheduler/framework/arguments.h"
#include "scheduler/framework/plugin.h"

namespace shoal::plugins::proportion {

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments& args);

}  // namespace shoal::plugins::proportion

#endif  // SHOAL_PLUGINS_PROPORTION_PROPORTION_H_
