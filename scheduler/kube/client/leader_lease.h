// Leader election on a coordination.k8s.io/v1 Lease, so that several
// replicas can run and exactly one schedules. A holder renews the lease
// well inside its duration; another instance takes it over only after it
// has seen the same record unchanged for a whole duration (measured on
// its own clock, so clock skew between machines does not matter).
#ifndef SHOAL_SCHEDULER_KUBE_CLIENT_LEADER_LEASE_H_
#define SHOAL_SCHEDULER_KUBE_CLIENT_LEADER_LEASE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "scheduler/kube/client/http_client.h"

namespace shoal::kube {

class LeaderLease {
 public:
  LeaderLease(HttpClient& client, std::string ns, std::string name,
              std::string identity, absl::Duration duration);

  // One attempt to take or keep the lease at `now`: true while this
  // instance holds it.
  absl::StatusOr<bool> TryAcquireOrRenew(absl::Time now);
  // Clears the holder so that a standby takes over at once.
  absl::Status Release();

  const std::string& identity() const { return identity_; }
  // Who held it when last read ("" when nobody).
  const std::string& holder() const { return holder_; }

 private:
  std::string Path() const;

  HttpClient& client_;
  const std::string ns_, name_, identity_;
  const absl::Duration duration_;
  // The last record seen, and when (on this machine's clock) it changed.
  std::string record_;
  std::string holder_;
  absl::Time record_seen_at_ = absl::InfinitePast();
};

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_CLIENT_LEADER_LEASE_H_
