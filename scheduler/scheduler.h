// The scheduling loop, the same in every mode (Volcano's runOnce with its
// cache interface is the shape): take a snapshot of the cache, run one
// cycle of the policy's actions on it, send the committed binds and
// evictions to the mode's DecisionSink and wait for their outcome, keep
// the cycle's verdicts in the cache, and publish them through the mode's
// StatusSink.
//
// A mode (live cluster, snapshot replay, simulator, a test) supplies only
// the source that feeds the cache and the two sinks; no mode applies a
// decision with code of its own.
#ifndef SHOAL_SCHEDULER_SCHEDULER_H_
#define SHOAL_SCHEDULER_SCHEDULER_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "scheduler/cache/cache.h"
#include "scheduler/cache/sinks.h"
#include "scheduler/framework/cycle.h"
#include "scheduler/framework/policy.h"

namespace shoal {

// What one cycle did, once its requests have come back.
struct AppliedCycle {
  struct Bind {
    api::TaskIndex task;  // in `cluster`
    std::string pod;      // ns/name
    std::string node;
    std::vector<api::ClaimWrite> claims;  // written before the bind
    absl::Status outcome;
    absl::Duration took;  // the request, sent to answered
    // Only the claims were written (binding conditions): not bound.
    bool reserve_only = false;
  };
  struct Eviction {
    api::TaskIndex task;
    std::string pod;
    std::string reason;
    std::string preemptor;
    absl::Status outcome;
    // A moved pod (consolidate): where its replacement has room held.
    std::string moved_to;
  };
  // The snapshot as the session left it: statuses, phases, messages.
  api::ClusterInfo cluster;
  std::vector<Bind> binds;          // in the order the cycle decided them
  std::vector<Eviction> evictions;  // likewise
  absl::Duration took;
  // Claims deallocated so their pods are placed again
  // (dra/stale_allocations.h).
  struct Deallocation {
    std::string claim;  // ns/name
    std::string reason;
    absl::Status outcome;
  };
  std::vector<Deallocation> deallocations;
};

struct SchedulerOptions {
  absl::Duration period = absl::Seconds(1);
  framework::CycleSettings cycle;
  // One log line per cycle (and per job at -v=3). Off where stderr belongs
  // to a report (the replay, the simulator).
  bool log_cycles = true;
  // Called after each cycle (the live mode's health: the loop is not
  // stuck).
  std::function<void(const AppliedCycle&)> on_cycle;
};

class Scheduler {
 public:
  Scheduler(cache::Cache& cache, framework::Policy& policy,
            cache::DecisionSink& decisions, cache::StatusSink& status,
            SchedulerOptions options);

  // One cycle, start to finish. Every bind is assumed in the cache before
  // it is sent and forgotten again if it fails, so no cycle books the same
  // room twice.
  std::shared_ptr<const AppliedCycle> RunOnce();

  // A cycle every period until `stop`. Before each, `may_schedule` is
  // asked (leadership): an error ends the loop with it.
  absl::Status Run(
      const std::atomic<bool>& stop,
      const std::function<absl::Status(absl::Time)>& may_schedule = nullptr);

  // The last cycle's outcome, or null before the first; safe from any
  // thread (the admin service reads it).
  std::shared_ptr<const AppliedCycle> last_cycle() const;

 private:
  void Log(const AppliedCycle& cycle) const;

  cache::Cache& cache_;
  framework::Policy& policy_;
  cache::DecisionSink& decisions_;
  cache::StatusSink& status_;
  const SchedulerOptions options_;
  mutable absl::Mutex mu_;
  std::shared_ptr<const AppliedCycle> last_ ABSL_GUARDED_BY(mu_);
  // The network tree whose warnings (what its description left out) were
  // last said: each tree's are said once, when it is first used.
  std::shared_ptr<const api::NetworkTopology> said_network_;
};

}  // namespace shoal

#endif  // SHOAL_SCHEDULER_SCHEDULER_H_
