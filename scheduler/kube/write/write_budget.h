// How fast the scheduler may write to the API server, and who goes first.
//
// One token bucket (kube-scheduler's --kube-api-qps / --kube-api-burst)
// covers every write. Binds and evictions are the *priority* lane: they
// take a token as soon as one is there. Status patches, pod conditions
// and Events are the *background* lane: while any priority write is
// queued or running they are held to their own smaller bucket (a
// fraction of qps) and never take a token a waiting priority
// write could have; when no bind is pending they may use the whole rate.
// So a slow or flooded event path cannot eat the bind rate, and events
// still drain when the cycle is idle.
#ifndef SHOAL_SCHEDULER_KUBE_WRITE_WRITE_BUDGET_H_
#define SHOAL_SCHEDULER_KUBE_WRITE_WRITE_BUDGET_H_

#include <atomic>
#include <functional>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace shoal::kube {

struct WriteBudgetOptions {
  // Writes per second, and how many may go at once after a quiet spell.
  double qps = 2000;
  int burst = 4000;
  // The background lane's share of qps while binds are pending (its
  // bucket holds a tenth of a second of that).
  double background_fraction = 0.025;
};

// A refilling bucket: `rate` tokens a second up to `capacity`.
class TokenBucket {
 public:
  TokenBucket(double rate, double capacity, absl::Time now);
  // Refills to `now`; true (and one token fewer) when one is there.
  bool TryTake(absl::Time now);
  // How long until a token is there (zero when one is).
  absl::Duration TimeToToken(absl::Time now);

 private:
  void Refill(absl::Time now);
  const double rate_, capacity_;
  double tokens_;
  absl::Time last_;
};

class WriteBudget {
 public:
  enum class Lane { kPriority, kBackground };

  explicit WriteBudget(WriteBudgetOptions options);
  WriteBudget(const WriteBudget&) = delete;
  WriteBudget& operator=(const WriteBudget&) = delete;

  // Blocks until `lane` may send one write. Returns false, without a
  // token, once `cancelled()` says so (checked at least every 20 ms).
  bool Acquire(Lane lane, const std::function<bool()>& cancelled);

  // Priority work queued or running: while above zero, the background
  // lane is held to its share.
  void PriorityPending(int delta) { priority_pending_ += delta; }

  const WriteBudgetOptions& options() const { return options_; }

 private:
  const WriteBudgetOptions options_;
  std::atomic<int> priority_pending_{0};
  absl::Mutex mu_;
  TokenBucket all_ ABSL_GUARDED_BY(mu_);
  TokenBucket background_ ABSL_GUARDED_BY(mu_);
  int priority_waiting_ ABSL_GUARDED_BY(mu_) = 0;
};

// Checks flag values: names the flag and the value when one is refused.
absl::Status CheckWriteBudgetOptions(const WriteBudgetOptions& options);

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_WRITE_WRITE_BUDGET_H_
