// Where a cycle's outcome goes. The scheduler loop (scheduler/scheduler.h)
// is the same in every mode; each mode supplies these: the Kubernetes API
// in a cluster, the replay's in-memory cluster with --snapshot, the
// simulator's world.
#ifndef SHOAL_SCHEDULER_CACHE_SINKS_H_
#define SHOAL_SCHEDULER_CACHE_SINKS_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "scheduler/api/cluster_info.h"
#include "scheduler/api/task_info.h"

namespace shoal::cache {

// Called exactly once with a request's outcome, on any thread, before
// DecisionSink::Wait returns.
using Done = std::function<void(absl::Status)>;

// Carries out committed binds and evictions, as many at a time as the
// sink likes.
class DecisionSink {
 public:
  virtual ~DecisionSink() = default;
  // `claims`: what to write to the pod's resource claims first (DRA);
  // the bind is sent only once every write has succeeded.
  virtual void Bind(std::shared_ptr<const api::PodInfo> pod,
                    const std::string& node,
                    const std::vector<api::ClaimWrite>& claims, Done done) = 0;
  // Writes the pod's claims and does not bind it (devices that must
  // report binding conditions first). A mode that cannot wait for
  // devices refuses, and the claims are forgotten.
  virtual void Reserve(std::shared_ptr<const api::PodInfo> pod,
                       const std::vector<api::ClaimWrite>& claims, Done done) {
    (void)pod;
    (void)claims;
    done(absl::UnimplementedError(
        "this mode does not wait for device binding conditions"));
  }
  // Clears the claim's allocation (and reservedFor): devices that will
  // never let its pending `pods` (ns/name) bind. `after`: the claim as it
  // is to be, with the resourceVersion the snapshot saw. A mode that
  // writes no claims refuses.
  virtual void Deallocate(const api::ResourceClaim& after,
                          const std::string& reason,
                          const std::vector<std::string>& pods, Done done) {
    (void)after;
    (void)reason;
    (void)pods;
    done(absl::UnimplementedError("this mode does not deallocate claims"));
  }
  // `reason`: "preempt", "reclaim", "elastic", "gang-incomplete";
  // `preemptor`: ns/name of the pod the room is for, if any.
  virtual void Evict(std::shared_ptr<const api::PodInfo> pod,
                     const std::string& reason, const std::string& preemptor,
                     Done done) = 0;
  // Returns once every Bind and Evict started has called its `done`: a
  // cycle never ends with a gang's binds undecided.
  virtual void Wait() {}
};

// Tells users what a cycle decided: PodGroup status, pod conditions,
// events.
class StatusSink {
 public:
  virtual ~StatusSink() = default;
  // The cluster as the cycle's session left it.
  virtual void Publish(const api::ClusterInfo& cluster) = 0;
};

}  // namespace shoal::cache

#endif  // SHOAL_SCHEDULER_CACHE_SINKS_H_
