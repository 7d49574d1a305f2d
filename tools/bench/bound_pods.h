// Counts pods as a watch sees them bound (spec.nodeName set), for the
// benchmarks that time binds through an API server: how many, and when the
// first and the last were seen.
#ifndef SHOAL_TOOLS_BENCH_BOUND_PODS_H_
#define SHOAL_TOOLS_BENCH_BOUND_PODS_H_

#include <atomic>
#include <set>
#include <string>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "scheduler/kube/client/http_client.h"
#include "scheduler/kube/stream/json_stream.h"

namespace shoal::bench {

class BoundPods {
 public:
  // Watches `collection` (e.g. /api/v1/namespaces/NS/pods) from
  // resourceVersion `version` until destroyed.
  BoundPods(const kube::ConnectionConfig& conn, std::string collection,
            std::string version)
      : thread_([this, conn, collection, version] {
          kube::HttpClient c(conn);
          (void)c.Stream(
              collection + "?watch=1&resourceVersion=" + version,
              [this](const std::string& line) {
                Seen(line);
                return !stop_.load();
              },
              absl::Hours(1), &stop_);
        }) {}
  ~BoundPods() {
    stop_ = true;
    thread_.join();
  }
  BoundPods(const BoundPods&) = delete;
  BoundPods& operator=(const BoundPods&) = delete;

  // Until `n` pods are bound or `timeout` passes; whether they were.
  bool WaitFor(int n, absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    auto enough = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return static_cast<int>(bound_.size()) >= n;
    };
    return mu_.AwaitWithTimeout(absl::Condition(&enough), timeout);
  }
  int count() {
    absl::MutexLock lock(&mu_);
    return static_cast<int>(bound_.size());
  }
  absl::Time first() {
    absl::MutexLock lock(&mu_);
    return first_;
  }
  absl::Time last() {
    absl::MutexLock lock(&mu_);
    return last_;
  }

 private:
  void Seen(const std::string& line) {
    auto e = kube::ReadWatchEvent(line);
    if (!e.ok() || !e->object.is_object()) return;
    const nlohmann::json& o = e->object;
    if (!o.contains("spec") || !o["spec"].contains("nodeName")) return;
    const nlohmann::json& meta = o.value("metadata", nlohmann::json::object());
    std::string key =
        meta.value("namespace", "") + "/" + meta.value("name", "");
    absl::MutexLock lock(&mu_);
    if (!bound_.insert(std::move(key)).second) return;
    last_ = absl::Now();
    if (bound_.size() == 1) first_ = last_;
  }

  std::atomic<bool> stop_{false};
  absl::Mutex mu_;
  std::set<std::string> bound_ ABSL_GUARDED_BY(mu_);
  absl::Time first_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  absl::Time last_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  std::thread thread_;  // last: starts once the rest exists
};

}  // namespace shoal::bench

#endif  // SHOAL_TOOLS_BENCH_BOUND_PODS_H_
