// Starvation-free backfill. Small jobs may fill the holes a waiting gang
// cannot use yet, but once a gang has waited longer than `waitLimit`
// (default 5m) since its PodGroup was created (admitted yet or not), the
// longest-waiting such gang gets nodes reserved: enough of the nodes it may
// use, emptiest first, to hold its minimum. From then on no other job's pods
// are placed there, so the room freed by finishing pods accumulates for the
// gang; and while it waits for admission, no other job is admitted ahead of it.
// The reservation holds across cycles until the gang runs (or goes away),
// then passes to the next gang past the limit.
#ifndef SHOAL_PLUGINS_RESERVATION_RESERVATION_H_
#define SHOAL_PLUGINS_RESERVATION_RESERVATION_H_

#include <memory>

#include "absl/status/statusor.h"
#include "scheduler/framework/arguments.h"
#include "scheduler/framework/plugin.h"

namespace shoal::plugins::reservation {

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments& args);

}  // namespace shoal::plugins::reservation

#endif  // SHOAL_PLUGINS_RESERVATION_RESERVATION_H_
