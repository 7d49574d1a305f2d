// What a finished cycle tells Prometheus (scheduler/metrics): binds and
// evictions by outcome and reason, attempts, unschedulable work, queues'
// standing, elastic targets, assumed pods. The loop calls it once per
// cycle in every mode; the figures are read off the cycle's own picture,
// never computed a second way.
#ifndef SHOAL_SCHEDULER_CYCLE_METRICS_H_
#define SHOAL_SCHEDULER_CYCLE_METRICS_H_

#include "absl/time/time.h"
#include "scheduler/scheduler.h"

namespace shoal {

void RecordCycleMetrics(const AppliedCycle& cycle, int assumed_pods,
                        absl::Time now);

}  // namespace shoal

#endif  // SHOAL_SCHEDULER_CYCLE_METRICS_H_
