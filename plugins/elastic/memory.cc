#include "plugins/elastic/memory.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"

namespace shoal::plugins::elastic {

uint64_t JobId(const std::string& uid) { return absl::HashOf(uid); }

int32_t Placed(const api::JobInfo& job) {
  return job.ReadyCount() + job.Count(api::TaskStatus::kPipelined);
}

bool Runs(const api::JobInfo& job) {
  return Placed(job) >= std::max(job.min_member, 1);
}

double Memory::ExpectedRoomAfter(const api::ClusterInfo& c) const {
  // Weight of each new observation: recent behaviour (a service's swings)
  // soon dominates, one odd eviction does not.
  constexpr double kWeight = 0.2;
  absl::flat_hash_set<std::string> holding;
  for (const api::TaskInfo& t : c.tasks) {
    if (api::HoldsShare(t.status)) holding.insert(t.pod->uid);
  }
  absl::flat_hash_set<uint64_t> running;  // JobIds
  for (const api::JobInfo& job : c.jobs) {
    if (Runs(job)) running.insert(JobId(job.uid));
  }
  // The pods taken back, in the order they were placed (then by uid): a
  // moving average depends on the order it is fed, and the map's order
  // is the hash's, which differs from one process to the next.
  std::vector<std::pair<absl::Time, const std::string*>> gone_pods;
  for (const auto& [uid, gone] : pods) {
    if (holding.contains(uid) || !gone.beyond_minimum ||
        !running.contains(gone.job) || gone.placed == absl::InfinitePast()) {
      continue;
    }
    gone_pods.emplace_back(gone.placed, &uid);
  }
  std::sort(
      gone_pods.begin(), gone_pods.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first < b.first : *a.second < *b.second;
      });
  double estimate = expected_room_seconds_;
  for (const auto& [placed, uid] : gone_pods) {
    const double lived = absl::ToDoubleSeconds(c.now - placed);
    if (lived > 0) estimate = (1 - kWeight) * estimate + kWeight * lived;
  }
  return estimate;
}

void Memory::RecordSizes(const api::ClusterInfo& c) {
  absl::flat_hash_set<std::string> seen;
  for (const api::JobInfo& job : c.jobs) {
    if (job.source == api::GroupSource::kSinglePod) continue;
    seen.insert(job.Key());
    JobMemory& m = jobs[job.Key()];
    if (m.uid != job.uid) m = JobMemory{job.uid};
    const int32_t placed = Placed(job);
    if (!Runs(job)) {
      if (m.size > 0) m.interrupted = true;
      m.size = 0;
      m.at_minimum_since = absl::InfiniteFuture();
      continue;
    }
    if (!m.started) {
      m.started = true;
      m.started_at = c.now;
      m.changed = c.now;
    } else if (m.interrupted || (m.size > 0 && placed != m.size)) {
      ++m.resizes;
      m.changed = c.now;
    }
    m.interrupted = false;
    m.size = placed;
    const bool wants_more = job.PendingCount() > 0;
    if (placed == job.min_member && wants_more) {
      m.at_minimum_since = std::min(m.at_minimum_since, c.now);
    } else {
      m.at_minimum_since = absl::InfiniteFuture();
    }
  }
  for (auto it = jobs.begin(); it != jobs.end();) {
    if (seen.contains(it->first)) {
      ++it;
    } else {
      jobs.erase(it++);
    }
  }
}

}  // namespace shoal::plugins::elastic
