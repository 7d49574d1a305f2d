#include "scheduler/actions/pending_jobs.h"

#include <algorithm>

namespace shoal::actions {

PendingJobs::PendingJobs(framework::Session& s,
                         const std::function<bool(api::JobInfo&)>& wanted,
                         bool skip_overused_queues)
    : s_(s),
      skip_overused_(skip_overused_queues),
      by_queue_(s.cluster().queues.size()) {
  for (api::JobIndex j = 0;
       j < static_cast<api::JobIndex>(s.cluster().jobs.size()); ++j) {
    api::JobInfo& job = s.job(j);
    int32_t q = job.queue_index;
    if (!wanted(job) || q == api::kNone) continue;
    by_queue_[q].push_back(j);
  }
  for (auto& jobs : by_queue_) {
    std::make_heap(jobs.begin(), jobs.end(), GoesLater());
  }
}

// Heap order: a max-heap on "goes later" keeps the job that goes first at
// the front.
std::function<bool(api::JobIndex, api::JobIndex)> PendingJobs::GoesLater()
    const {
  return [this](api::JobIndex a, api::JobIndex b) {
    return s_.JobBefore(s_.job(b), s_.job(a));
  };
}

api::JobIndex PendingJobs::Next() {
  int32_t best = api::kNone;
  for (int32_t q = 0; q < static_cast<int32_t>(by_queue_.size()); ++q) {
    if (by_queue_[q].empty()) continue;
    if (skip_overused_ && s_.Call<framework::Overused>(s_.cluster().queues[q]))
      continue;
    if (best == api::kNone ||
        s_.QueueBefore(s_.cluster().queues[q], s_.cluster().queues[best])) {
      best = q;
    }
  }
  if (best == api::kNone) return api::kNone;
  auto& jobs = by_queue_[best];
  std::pop_heap(jobs.begin(), jobs.end(), GoesLater());
  api::JobIndex j = jobs.back();
  jobs.pop_back();
  return j;
}

void PendingJobs::Push(api::JobIndex job) {
  int32_t q = s_.job(job).queue_index;
  auto& jobs = by_queue_[q];
  jobs.push_back(job);
  std::push_heap(jobs.begin(), jobs.end(), GoesLater());
}

std::vector<api::JobIndex> PendingJobs::CloseQueueOf(api::JobIndex job) {
  std::vector<api::JobIndex> left;
  left.swap(by_queue_[s_.job(job).queue_index]);
  return left;
}

}  // namespace shoal::actions
