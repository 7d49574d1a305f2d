// When growing a running elastic job pays for the restart it costs.
//
// A real elastic trainer (torchrun, Horovod elastic) restarts its whole
// worker group from its last checkpoint whenever its membership changes:
// every change of the pod count costs each of its pods the job's resize
// cost in lost progress. Growing a running job from `size` to `target`
// pods gains (target - size) pods for as long as the room is expected to
// stay, and costs a restart of all `target` pods:
//
//   grow  iff  (target - size) * expected_room  >  cost * target
//
// and never sooner than `hold` seconds after the job's last change, so a
// job changes in batches, not one pod per cycle. A resize cost of 0 keeps
// both rules out of the way: growth is free.
//
// A job that declares how it scales (curve.h, shoal.dev/throughput) is
// weighed by its curve T instead of by pod counts: it gains T(target) -
// T(size) for as long as the room stays, and the restart costs the work
// of T(target) for the resize cost (pod counts are the linear curve):
//
//   grow  iff  (T(target) - T(size)) * expected_room  >  cost * T(target)
#ifndef SHOAL_PLUGINS_ELASTIC_RESIZE_RULE_H_
#define SHOAL_PLUGINS_ELASTIC_RESIZE_RULE_H_

#include <cstdint>
#include <string>

#include "plugins/elastic/curve.h"

namespace shoal::plugins::elastic {

struct Growth {
  int32_t size = 0;    // pods running now (its minimum at least)
  int32_t target = 0;  // pods it would run after growing
  int32_t cost_seconds = 0;
  // Seconds since its pod count last changed (or it started).
  double since_change_seconds = 0;
  int32_t hold_seconds = 0;
  // How long room lent to growth is expected to stay (ResizeLedger).
  double expected_room_seconds = 0;
  // Its scaling curve; null or empty: linear.
  const Curve* curve = nullptr;
};

// Why the growth waits or does not pay, in a sentence for `explain` and
// the PodGroup's condition; "" when it goes ahead.
std::string GrowthHeldBack(const Growth& g);

}  // namespace shoal::plugins::elastic

#endif  // SHOAL_PLUGINS_ELASTIC_RESIZE_RULE_H_
