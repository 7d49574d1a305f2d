#include "scheduler/kube/write/write_budget.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace shoal::kube {

TokenBucket::TokenBucket(double rate, double capacity, absl::Time now)
    : rate_(rate), capacity_(capacity), tokens_(capacity), last_(now) {}

void TokenBucket::Refill(absl::Time now) {
  if (now <= last_) return;
  tokens_ =
      std::min(capacity_, tokens_ + rate_ * absl::ToDoubleSeconds(now - last_));
  last_ = now;
}

bool TokenBucket::TryTake(absl::Time now) {
  Refill(now);
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

absl::Duration TokenBucket::TimeToToken(absl::Time now) {
  Refill(now);
  if (tokens_ >= 1) return absl::ZeroDuration();
  return absl::Seconds((1 - tokens_) / rate_);
}

namespace {

// The background lane's bucket holds a tenth of a second of its rate: it
// is a trickle beside the binds, and a burst of it would be taken from
// them (at least one token, so a small rate does not shut it out).
double BackgroundCapacity(const WriteBudgetOptions& o) {
  return std::max(1.0, std::floor(o.qps * o.background_fraction / 10));
}

}  // namespace

WriteBudget::WriteBudget(WriteBudgetOptions options)
    : options_(options),
      all_(options.qps, options.burst, absl::Now()),
      background_(options.qps * options.background_fraction,
                  BackgroundCapacity(options), absl::Now()) {}

bool WriteBudget::Acquire(Lane lane, const std::function<bool()>& cancelled) {
  constexpr absl::Duration kSlice = absl::Milliseconds(20);
  bool priority = lane == Lane::kPriority;
  {
    absl::MutexLock lock(&mu_);
    if (priority) ++priority_waiting_;
  }
  while (true) {
    absl::Duration wait;
    {
      absl::MutexLock lock(&mu_);
      absl::Time now = absl::Now();
      if (priority) {
        if (all_.TryTake(now)) {
          --priority_waiting_;
          return true;
        }
        wait = all_.TimeToToken(now);
      } else if (priority_waiting_ > 0) {
        // A bind is waiting for a token: it has it first.
        wait = kSlice;
      } else if (priority_pending_.load() > 0) {
        // Binds are being sent: the background lane keeps to its share,
        // and takes from the shared bucket too so the total holds.
        absl::Duration shared = all_.TimeToToken(now);
        absl::Duration own = background_.TimeToToken(now);
        if (shared == absl::ZeroDuration() && own == absl::ZeroDuration()) {
          all_.TryTake(now);
          background_.TryTake(now);
          return true;
        }
        wait = std::max(shared, own);
      } else {
        if (all_.TryTake(now)) {
          background_.TryTake(now);  // keeps the share honest when binds start
          return true;
        }
        wait = all_.TimeToToken(now);
      }
    }
    if (cancelled && cancelled()) {
      if (priority) {
        absl::MutexLock lock(&mu_);
        --priority_waiting_;
      }
      return false;
    }
    absl::SleepFor(std::min(std::max(wait, absl::Microseconds(100)), kSlice));
  }
}

absl::Status CheckWriteBudgetOptions(const WriteBudgetOptions& options) {
  if (!(options.qps > 0) || !std::isfinite(options.qps)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--kube-api-qps must be a positive number, got ", options.qps));
  }
  if (options.burst < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--kube-api-burst must be at least 1, got ", options.burst));
  }
  if (!(options.background_fraction > 0) || options.background_fraction > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("the background share of the write budget must be in "
                     "(0, 1], got ",
                     options.background_fraction));
  }
  return absl::OkStatus();
}

}  // namespace shoal::kube
