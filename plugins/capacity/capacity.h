// Volcano's `capacity` plugin: each queue states its own shares instead of
// being given one by water-filling. `spec.capability` is the hard limit,
// `spec.guarantee.resource` what others may never take from it, and
// `spec.deserved` what it gets back by reclaim; in a queue tree
// (queue_tree.h) each of these holds at every level.
//
// Shoal's reading differs from Volcano's in one place on purpose: a queue
// reaches its deserved share first and borrows up to its capability in the
// actions' borrowing pass (Session::borrowing), so reclaim never takes a
// queue past its deserved share and borrowed room is what gets taken back.
#ifndef SHOAL_PLUGINS_CAPACITY_CAPACITY_H_
#define SHOAL_PLUGINS_CAPACITY_CAPACITY_H_

#include <memory>

#include "absl/status/statusor.h"
#include "scheduler/framework/arguments.h"
#include "scheduler/framework/plugin.h"

namespace shoal::plugins::capacity {

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments& args);

}  // namespace shoal::plugins::capacity

#endif  // SHOAL_PLUGINS_CAPACITY_CAPACITY_H_
