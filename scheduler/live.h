// Live mode: informers keep the cache in step with the API server, and
// every period a scheduling cycle runs on a snapshot; its binds and
// evictions go back through the API. Runs until `stop`.
#ifndef SHOAL_SCHEDULER_LIVE_H_
#define SHOAL_SCHEDULER_LIVE_H_

#include <atomic>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "scheduler/admin/server.h"
#include "scheduler/framework/policy.h"
#include "scheduler/kube/client/connection_config.h"
#include "scheduler/kube/write/write_budget.h"

namespace shoal {

struct LiveOptions {
  std::string scheduler_name = "shoal";
  absl::Duration period = absl::Seconds(1);
  // How long to wait for the first list of every required kind.
  absl::Duration sync_timeout = absl::Seconds(60);
  // Binds (and evictions) in flight at once, each on its own connection.
  int bind_concurrency = 16;
  // Every API write (--kube-api-qps, --kube-api-burst): binds and
  // evictions first, status and Events on their own share (write_budget.h).
  kube::WriteBudgetOptions writes;
  // See partial_gangs.h.
  int partial_gang_release_cycles = 30;
  // Leader election on a Lease (see kube/leader_lease.h): only the holder
  // schedules; the others keep their caches warm and wait.
  bool leader_elect = false;
  std::string lease_namespace = "shoal-system";
  std::string lease_name = "shoal-scheduler";
  absl::Duration lease_duration = absl::Seconds(15);
  // The gRPC admin service (shoalctl); empty address: not served. When
  // the default address cannot be served (a second scheduler on the same
  // host), the scheduler runs on without it and says so.
  admin::AdminOptions admin;
  // Where /metrics, /healthz and /readyz are served ("HOST:PORT", ":PORT";
  // port 0 picks one and logs it); empty: not served.
  std::string metrics_address = ":8080";
};

absl::Status RunLive(const kube::ConnectionConfig& connection,
                     framework::Policy& policy, const LiveOptions& options,
                     const std::atomic<bool>& stop);

}  // namespace shoal

#endif  // SHOAL_SCHEDULER_LIVE_H_
