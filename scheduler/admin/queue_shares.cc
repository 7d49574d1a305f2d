#include "scheduler/admin/queue_shares.h"

namespace shoal::admin {

std::vector<QueueShare> ComputeQueueShares(const api::ClusterInfo& c) {
  std::vector<QueueShare> shares(c.queues.size());
  for (const api::JobInfo& job : c.jobs) {
    if (job.queue_index == api::kNone) continue;
    QueueShare& qs = shares[job.queue_index];
    api::Resource held, wants;
    for (api::TaskIndex t : job.tasks) {
      const api::TaskInfo& task = c.tasks[t];
      if (api::HoldsShare(task.status)) held += task.request();
      if (api::HoldsShare(task.status) ||
          task.status == api::TaskStatus::kPending) {
        wants += task.request();
      }
    }
    if (static_cast<int32_t>(job.tasks.size()) < job.min_member) {
      wants.MaxWith(c.GangMinimum(job));
    }
    qs.request += wants;
    qs.allocated += held;
  }
  api::Resource guaranteed;
  for (const auto& queue : c.queues) guaranteed += queue.guarantee;
  for (size_t q = 0; q < shares.size(); ++q) {
    const api::QueueInfo& queue = c.queues[q];
    api::Resource cap = c.total_allocatable - guaranteed + queue.guarantee;
    if (queue.capability.has_value()) cap.MinWith(*queue.capability);
    shares[q].real_capability = cap;
  }

  std::vector<bool> satisfied(shares.size(), false);
  api::Resource remaining = c.total_allocatable;
  for (size_t q = 0; q < shares.size(); ++q) {
    const api::QueueInfo& queue = c.queues[q];
    if (!queue.deserved.has_value()) continue;
    QueueShare& qs = shares[q];
    qs.deserved = *queue.deserved;
    qs.deserved.MinWith(qs.real_capability);
    qs.deserved.MinWith(qs.request);
    qs.deserved.MaxWith(queue.guarantee);
    satisfied[q] = true;
    remaining -= qs.deserved;
  }
  remaining.MaxWith(api::Resource());
  for (int round = 0; round < 64; ++round) {
    int64_t weight = 0;
    for (size_t q = 0; q < shares.size(); ++q) {
      if (!satisfied[q]) weight += c.queues[q].weight;
    }
    if (weight == 0) break;
    api::Resource given, taken;
    for (size_t q = 0; q < shares.size(); ++q) {
      if (satisfied[q]) continue;
      QueueShare& qs = shares[q];
      const api::QueueInfo& queue = c.queues[q];
      api::Resource before = qs.deserved;
      qs.deserved +=
          remaining.Scaled(static_cast<double>(queue.weight) / weight);
      qs.deserved.MinWith(qs.real_capability);
      qs.deserved.MinWith(qs.request);
      qs.deserved.MaxWith(queue.guarantee);
      if (qs.request.AllLessEqual(qs.deserved) ||
          qs.real_capability.AllLessEqual(qs.deserved)) {
        satisfied[q] = true;
      }
      api::Resource diff = qs.deserved - before;
      for (size_t i = 0; i < diff.size(); ++i) {
        auto id = static_cast<api::ResourceId>(i);
        if (diff.Get(id) > 0) given.Set(id, given.Get(id) + diff.Get(id));
        if (diff.Get(id) < 0) taken.Set(id, taken.Get(id) - diff.Get(id));
      }
    }
    api::Resource next = remaining - given + taken;
    bool exhausted = true;
    for (size_t i = 0; i < next.size(); ++i) {
      if (next.Get(static_cast<api::ResourceId>(i)) > 0) exhausted = false;
    }
    if (exhausted || next == remaining) break;
    remaining = next;
  }
  for (auto& qs : shares) qs.share = qs.allocated.DominantShare(qs.deserved);
  return shares;
}

}  // namespace shoal::admin
