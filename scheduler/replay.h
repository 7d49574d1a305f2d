// Snapshot replay: run N scheduling cycles over a cluster held in memory,
// applying each cycle's binds and evictions before the next, and report
// what happened. No API server is involved.
#ifndef SHOAL_SCHEDULER_REPLAY_H_
#define SHOAL_SCHEDULER_REPLAY_H_

#include <string>

#include "proto/replay.pb.h"
#include "scheduler/cache/cache.h"
#include "scheduler/framework/policy.h"

namespace shoal {

shoal::v1::ReplayReport Replay(cache::Cache& cache, framework::Policy& policy,
                               int cycles);

// The report as JSON (the proto's JSON mapping, every field printed).
std::string ReportJson(const shoal::v1::ReplayReport& report);
// The report as tables, the way kubectl prints.
std::string ReportText(const shoal::v1::ReplayReport& report);

}  // namespace shoal

#endif  // SHOAL_SCHEDULER_REPLAY_H_
