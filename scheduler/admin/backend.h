// What the admin service reads from the running scheduler. The scheduler
// (live or replay) implements it; the tests implement it over a snapshot
// file. Every method may be called from gRPC threads at any time, so an
// implementation copies under its own lock.
#ifndef SHOAL_SCHEDULER_ADMIN_BACKEND_H_
#define SHOAL_SCHEDULER_ADMIN_BACKEND_H_

#include <optional>
#include <string>
#include <vector>

#include "scheduler/api/cluster_info.h"
#include "scheduler/framework/config.h"

namespace shoal::admin {

// An installed CRD of a kind Shoal reads, and the fields Shoal honours
// that its schema would drop (kube/crd_check.h), with the warning for each.
struct CrdFinding {
  std::string crd;
  std::vector<std::string> fields;
  std::vector<std::string> messages;
};

class AdminBackend {
 public:
  virtual ~AdminBackend() = default;
  // The cache now (Cache::Snapshot()).
  virtual api::ClusterInfo Snapshot() const = 0;
  // The cache as a `kind: List` of Kubernetes objects, JSON text.
  virtual std::string SnapshotList() const = 0;
  // The running policy's configuration. The admin service builds its own
  // Policy instances from it and never touches the scheduler's.
  virtual const framework::SchedulerConfig& config() const = 0;
  // The cluster as the last session left it (CycleOutcome::cluster: task
  // statuses, PodGroup phases and messages), when a cycle has run.
  virtual std::optional<api::ClusterInfo> LastCycle() const = 0;
  // What the scheduler found in the installed CRDs; nullopt when it has
  // read none (a replay of a snapshot, or RBAC does not let it).
  virtual std::optional<std::vector<CrdFinding>> Crds() const {
    return std::nullopt;
  }
};

}  // namespace shoal::admin

#endif  // SHOAL_SCHEDULER_ADMIN_BACKEND_H_
