// An AdminBackend over a cluster dump: the cache loaded from a snapshot
// file (as shoal-scheduler --snapshot loads it), after `cycles` cycles of
// the policy whose binds are assumed and whose PodGroup verdicts are kept,
// as the live scheduler's cache would hold them. For tests and for serving
// a replayed cluster.
#ifndef SHOAL_SCHEDULER_ADMIN_FILE_BACKEND_H_
#define SHOAL_SCHEDULER_ADMIN_FILE_BACKEND_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "scheduler/admin/backend.h"
#include "scheduler/cache/cache.h"

namespace shoal::admin {

class FileBackend : public AdminBackend {
 public:
  // Refuses a snapshot or policy the scheduler would refuse, with its
  // message.
  static absl::StatusOr<std::unique_ptr<FileBackend>> Load(
      const std::string& snapshot_path, framework::SchedulerConfig config,
      int cycles);

  api::ClusterInfo Snapshot() const override { return cache_->Snapshot(); }
  // The cache as live mode writes it (kube::WriteSnapshotList), decisions
  // of the replayed cycles included; not the file's own text, which may be
  // a dump of hundreds of megabytes read once already.
  std::string SnapshotList() const override;
  const framework::SchedulerConfig& config() const override { return config_; }
  std::optional<api::ClusterInfo> LastCycle() const override { return last_; }

 private:
  FileBackend() = default;
  absl::Time clock_;
  std::unique_ptr<cache::Cache> cache_;
  framework::SchedulerConfig config_;
  std::optional<api::ClusterInfo> last_;
};

}  // namespace shoal::admin

#endif  // SHOAL_SCHEDULER_ADMIN_FILE_BACKEND_H_
