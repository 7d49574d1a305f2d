// The AdminBackend of a running scheduler: snapshots of its cache, and the
// cluster as its last cycle left it, recorded by the scheduling loop after
// each cycle (RecordCycle). Thread-safe: gRPC threads read while the loop
// records.
#ifndef SHOAL_SCHEDULER_ADMIN_CACHE_BACKEND_H_
#define SHOAL_SCHEDULER_ADMIN_CACHE_BACKEND_H_

#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "scheduler/admin/backend.h"
#include "scheduler/cache/cache.h"

namespace shoal::admin {

class CacheBackend : public AdminBackend {
 public:
  // `list_json` writes the cache as a `kind: List` (JSON text); `config`
  // is the running policy's (Policy::config). The cache must outlive this.
  CacheBackend(const cache::Cache& cache, framework::SchedulerConfig config,
               std::function<std::string()> list_json)
      : cache_(cache),
        config_(std::move(config)),
        list_json_(std::move(list_json)) {}

  // After each cycle: CycleOutcome::cluster (a cheap copy: pod and node
  // facts are shared).
  void RecordCycle(api::ClusterInfo cluster) {
    absl::MutexLock lock(&mu_);
    last_ = std::move(cluster);
  }

  api::ClusterInfo Snapshot() const override { return cache_.Snapshot(); }
  std::string SnapshotList() const override {
    return list_json_ ? list_json_() : std::string();
  }
  const framework::SchedulerConfig& config() const override { return config_; }
  std::optional<api::ClusterInfo> LastCycle() const override {
    absl::MutexLock lock(&mu_);
    return last_;
  }

 private:
  const cache::Cache& cache_;
  const framework::SchedulerConfig config_;
  const std::function<std::string()> list_json_;
  mutable absl::Mutex mu_;
  std::optional<api::ClusterInfo> last_ ABSL_GUARDED_BY(mu_);
};

}  // namespace shoal::admin

#endif  // SHOAL_SCHEDULER_ADMIN_CACHE_BACKEND_H_
