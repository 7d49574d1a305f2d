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
  // is the running policy's (Policy::config); `last_cycle` gives the
  // cluster as the loop's last cycle left it, when one has run
  // (Scheduler::last_cycle). The cache must outlive this.
  CacheBackend(const cache::Cache& cache, framework::SchedulerConfig config,
               std::function<std::string()> list_json,
               std::function<std::optional<api::ClusterInfo>()> last_cycle)
      : cache_(cache),
        config_(std::move(config)),
        list_json_(std::move(list_json)),
        last_cycle_(std::move(last_cycle)) {}

  api::ClusterInfo Snapshot() const override { return cache_.Snapshot(); }
  std::string SnapshotList() const override {
    return list_json_ ? list_json_() : std::string();
  }
  const framework::SchedulerConfig& config() const override { return config_; }
  std::optional<api::ClusterInfo> LastCycle() const override {
    return last_cycle_ ? last_cycle_() : std::nullopt;
  }
  // What the CRD watch found (live.cc); set before the server starts.
  void set_crds(std::function<std::optional<std::vector<CrdFinding>>()> crds) {
    crds_ = std::move(crds);
  }
  std::optional<std::vector<CrdFinding>> Crds() const override {
    return crds_ ? crds_() : std::nullopt;
  }

 private:
  const cache::Cache& cache_;
  const framework::SchedulerConfig config_;
  const std::function<std::string()> list_json_;
  const std::function<std::optional<api::ClusterInfo>()> last_cycle_;
  std::function<std::optional<std::vector<CrdFinding>>()> crds_;
};

}  // namespace shoal::admin

#endif  // SHOAL_SCHEDULER_ADMIN_CACHE_BACKEND_H_
