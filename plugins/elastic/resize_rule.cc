#include "plugins/elastic/resize_rule.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace shoal::plugins::elastic {

std::string GrowthHeldBack(const Growth& g) {
  if (g.target <= g.size || g.cost_seconds <= 0) return "";
  if (g.since_change_seconds < g.hold_seconds) {
    return absl::StrFormat(
        "growth from %d to %d pods held: its pod count changed %.0fs ago, "
        "and a job keeps its size at least %ds between resizes",
        g.size, g.target, g.since_change_seconds, g.hold_seconds);
  }
  if (g.curve != nullptr && !g.curve->empty()) {
    const double from = ThroughputAt(*g.curve, g.size);
    const double to = ThroughputAt(*g.curve, g.target);
    const double gain = (to - from) * g.expected_room_seconds;
    const double cost = g.cost_seconds * to;
    if (gain > cost) return "";
    return absl::StrFormat(
        "growth from %d to %d pods skipped: its throughput would go from "
        "%.3g to %.3g (shoal.dev/throughput), and that for the ~%.0fs room "
        "is expected to stay (%.0f pod-s) does not pay a restart at "
        "throughput %.3g (%ds: %.0f pod-s)",
        g.size, g.target, from, to, g.expected_room_seconds, gain, to,
        g.cost_seconds, cost);
  }
  const double gain = (g.target - g.size) * g.expected_room_seconds;
  const double cost = static_cast<double>(g.cost_seconds) * g.target;
  if (gain > cost) return "";
  return absl::StrFormat(
      "growth from %d to %d pods skipped: %d more pods for the ~%.0fs room "
      "is expected to stay (%.0f pod-s) do not pay a restart of %d pods "
      "(%ds: %.0f pod-s)",
      g.size, g.target, g.target - g.size, g.expected_room_seconds, gain,
      g.target, g.cost_seconds, cost);
}

}  // namespace shoal::plugins::elastic
