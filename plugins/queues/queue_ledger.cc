#include "plugins/queues/queue_ledger.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/api/quantity.h"

namespace shoal::plugins::queues {

api::Resource QueueAccount::CommittedFrom(int32_t from) const {
  api::Resource sum;
  for (auto it = committed.lower_bound(from); it != committed.end(); ++it) {
    sum += it->second;
  }
  return sum;
}

api::Resource QueueAccount::Committed() const {
  api::Resource sum;
  for (const auto& [priority, amount] : committed) sum += amount;
  return sum;
}

QueueLedger::QueueLedger(const api::ClusterInfo& c)
    : c_(c), accounts_(c.queues.size()) {
  for (const api::JobInfo& job : c.jobs) {
    int32_t q = job.queue_index;
    if (q == api::kNone) continue;
    api::Resource held, wants;
    for (api::TaskIndex t : job.tasks) {
      const api::TaskInfo& task = c.tasks[t];
      if (api::HoldsShare(task.status)) held += task.counted();
      if (api::HoldsShare(task.status) ||
          task.status == api::TaskStatus::kPending) {
        wants += task.counted();
      }
    }
    // A PodGroup whose pods are not all created yet still wants its
    // minimum (its controller creates the pods once it is admitted).
    if (static_cast<int32_t>(job.tasks.size()) < job.min_member) {
      wants.MaxWith(c.GangMinimum(job));
    }
    api::Resource committed = held;
    if (job.elastic()) {
      api::Resource surplus = held - c.GangMinimum(job);
      surplus.MaxWith(api::Resource());
      committed -= surplus;
    }
    // An admitted gang that is not placed yet has its minimum promised.
    if (job.phase == api::PodGroupPhase::kInqueue) {
      api::Resource promised = c.GangMinimum(job) - held;
      promised.MaxWith(api::Resource());
      committed += promised;
    }
    for (int32_t at = q; at != api::kNone; at = c.queues[at].parent_index) {
      QueueAccount& a = accounts_[at];
      a.request += wants;
      a.allocated += held;
      a.committed[job.priority] += committed;
    }
  }
}

void QueueLedger::Move(int32_t q, const api::Resource& request, int sign) {
  for (int32_t at = q; at != api::kNone; at = c_.queues[at].parent_index) {
    if (sign > 0) {
      accounts_[at].allocated += request;
    } else {
      accounts_[at].allocated -= request;
    }
  }
}

void QueueLedger::Admit(int32_t q, int32_t priority,
                        const api::Resource& promised) {
  for (int32_t at = q; at != api::kNone; at = c_.queues[at].parent_index) {
    accounts_[at].committed[priority] += promised;
  }
}

api::Resource Unlimited() {
  api::Resource r;
  for (int id = 0; id < api::ResourceNameCount(); ++id) {
    r.Set(static_cast<api::ResourceId>(id), api::kUnlimited);
  }
  return r;
}

TreeTop TopOf(const api::ClusterInfo& c) {
  TreeTop t;
  for (const api::QueueInfo& q : c.queues) {
    if (q.parent_index != api::kNone) continue;
    if (q.name != api::kRootQueue) {
      t.top.push_back(q.index);
      continue;
    }
    t.root = q.index;
    t.root_capability = q.capability.value_or(Unlimited());
    t.for_children = c.total_allocatable;
    t.for_children.MinWith(t.root_capability);
  }
  return t;
}

std::string Overshoot(const api::Resource& after, const api::Resource& limit,
                      const api::Resource& asked) {
  std::vector<std::string> over;
  after.ForEachShortage(limit, [&](api::ResourceId id) {
    if (asked.Get(id) == 0) return;
    api::QuantityScale scale = api::ScaleOf(id);
    over.push_back(absl::StrCat(api::ResourceName(id), " would reach ",
                                api::FormatQuantity(after.Get(id), scale),
                                " of ",
                                api::FormatQuantity(limit.Get(id), scale)));
  });
  return absl::StrJoin(over, ", ");
}

std::string QueueAndPlace(const api::ClusterInfo& c, int32_t q) {
  const api::QueueInfo& queue = c.queues[q];
  if (queue.parent_index == api::kNone ||
      c.queues[queue.parent_index].name == api::kRootQueue) {
    return absl::StrCat("queue ", queue.name);
  }
  return absl::StrCat("queue ", queue.name, " (under ",
                      c.queues[queue.parent_index].name, ")");
}

}  // namespace shoal::plugins::queues
