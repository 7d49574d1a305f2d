// Snapshot replay: run N scheduling cycles over a cluster held in memory,
// applying each cycle's binds and evictions before the next, and report
// what happened. No API server is involved.
#ifndef SHOAL_SCHEDULER_REPLAY_H_
#define SHOAL_SCHEDULER_REPLAY_H_

#include <string>

#include "absl/time/time.h"
#include "proto/replay.pb.h"
#include "scheduler/cache/cache.h"
#include "scheduler/framework/cycle.h"
#include "scheduler/framework/policy.h"

namespace shoal {

struct ReplayOptions {
  int cycles = 1;
  absl::Duration period = absl::Seconds(1);
  framework::CycleSettings cycle;
  // The replay plays Kubernetes' resourceclaim controller this many
  // cycles after an eviction: the evicted pod leaves its claims'
  // status.reservedFor, and a claim no pod reserves any more is
  // deallocated (deleted, if it was made for that pod). 1: before the
  // next cycle; 0: never (the claims keep the evicted pods).
  int claim_controller_lag = 1;
  // The replay plays the job controllers too: an evicted pod of a job
  // with a PodGroup comes back before the next cycle as a new pending pod
  // of the same name (a Volcano Job's controller keeps its pods' names),
  // as consolidation counts on. Off: an evicted pod is gone for good.
  bool recreate_evicted = false;
};

// `cache` must read the time from `*clock`, which the replay sets before
// each cycle: the dump's newest creationTimestamp, then `period` later
// each cycle, so that replays are repeatable.
shoal::v1::ReplayReport Replay(cache::Cache& cache, framework::Policy& policy,
                               const ReplayOptions& options, absl::Time* clock);

// The report as JSON (the proto's JSON mapping, every field printed).
std::string ReportJson(const shoal::v1::ReplayReport& report);
// The report as tables, the way kubectl prints.
std::string ReportText(const shoal::v1::ReplayReport& report);

}  // namespace shoal

#endif  // SHOAL_SCHEDULER_REPLAY_H_
