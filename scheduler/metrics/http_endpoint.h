// The scheduler's HTTP endpoint: GET /metrics (Prometheus text format),
// GET /healthz (liveness: the process is up and its loop is not stuck) and
// GET /readyz (readiness: caches synced and leadership known).
//
//   metrics::Health health;  // HealthOptions: period, stuck_periods, ...
//   metrics::HttpEndpoint endpoint(metrics::DefaultRegistry(), health);
//   if (auto s = endpoint.Start(":8080"); !s.ok()) ...
//   ... loop: health.CycleFinished(absl::Now());
#ifndef SHOAL_SCHEDULER_METRICS_HTTP_ENDPOINT_H_
#define SHOAL_SCHEDULER_METRICS_HTTP_ENDPOINT_H_

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "scheduler/metrics/metrics.h"

namespace httplib {
class Server;
}

namespace shoal::metrics {

enum class Leadership {
  kUnknown,      // not yet decided (election not started or in progress)
  kNotElecting,  // leader election off: this replica schedules
  kLeader,       // holds the lease: schedules
  kStandby,      // another replica leads: keeps its cache, runs no cycles
};

// When Health calls the scheduling loop stuck.
struct HealthOptions {
  absl::Duration period = absl::Seconds(1);  // the scheduling period
  // Stuck: no cycle finished for max(stuck_periods * period, min_stuck)
  // while this replica should be running cycles.
  int stuck_periods = 10;
  absl::Duration min_stuck = absl::Seconds(30);
};

// What /healthz and /readyz answer, updated by the scheduler loop.
// Thread-safe.
class Health {
 public:
  using Options = HealthOptions;
  // HTTP status and body.
  struct Verdict {
    int code = 200;
    std::string body;
  };

  explicit Health(Options options = {}, absl::Time start = absl::Now());

  void CycleFinished(absl::Time at = absl::Now());
  // All caches synced, or not.
  void SetSynced(bool synced);
  // Not synced yet, naming the kinds still listing ("pods", "nodes");
  // empty means synced.
  void SetUnsynced(std::vector<std::string> kinds);
  void SetLeadership(Leadership leadership, absl::Time at = absl::Now());
  void SetPeriod(absl::Duration period);

  // 200 "ok" while alive; 500 saying how long since the last cycle when a
  // replica that should run cycles (synced, and leader or not electing)
  // has finished none for StuckAfter(). A standby, or a replica still
  // syncing, is alive. The clock starts at the later of the last cycle and
  // the moment this replica began to run cycles.
  Verdict Liveness(absl::Time now = absl::Now()) const;
  // 200 "leader" / "standby" / "leader (not electing)" once caches are
  // synced and leadership is known; else 503 naming what is missing.
  Verdict Readiness() const;

  absl::Duration StuckAfter() const;

 private:
  bool RunningLocked() const;
  void UpdateRunningLocked(absl::Time at);

  mutable std::mutex mu_;
  Options options_;
  bool synced_ = false;
  std::vector<std::string> unsynced_;
  Leadership leadership_ = Leadership::kUnknown;
  std::optional<absl::Time> last_cycle_;
  bool running_ = false;
  absl::Time running_since_;
};

// Serves /metrics, /healthz and /readyz on its own thread.
class HttpEndpoint {
 public:
  HttpEndpoint(const Registry& registry, const Health& health);
  ~HttpEndpoint();  // stops
  HttpEndpoint(const HttpEndpoint&) = delete;
  HttpEndpoint& operator=(const HttpEndpoint&) = delete;

  // `address` is "HOST:PORT", ":PORT" (every interface) or "[V6]:PORT";
  // port 0 picks a free one (see port()). InvalidArgument for a malformed
  // address, Unavailable when it cannot be bound.
  absl::Status Start(const std::string& address);
  // The bound port, after Start.
  int port() const { return port_; }
  void Stop();

 private:
  const Registry& registry_;
  const Health& health_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace shoal::metrics

#endif  // SHOAL_SCHEDULER_METRICS_HTTP_ENDPOINT_H_
