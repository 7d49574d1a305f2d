#include "plugins/proportion/proportion.h"

#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/framework/session.h"

namespace shoal::plugins::proportion {
namespace {

using framework::Session;

struct QueueShare {
  api::Resource deserved;
  api::Resource allocated;  // held by the queue's tasks now
  api::Resource request;    // everything its jobs ask for: allocated + pending
  // What admission has committed, by job priority: held by the queue's
  // jobs (less elastic surplus, which only borrows) plus the minimums of
  // admitted gangs not placed yet.
  std::map<int32_t, api::Resource> committed;
  api::Resource real_capability;  // capability, less others' guarantees
  double share = 0;
  bool satisfied = false;  // water-filling is done with it
};

// Each queue's deserved share, worked out when the session opens, and
// what it holds, kept current as the session's statements move tasks.
class ProportionSession : public framework::PluginSession {
 public:
  explicit ProportionSession(bool borrowing) : borrowing_(borrowing) {}

  // Registers the callbacks, which point into this object.
  void Register(Session& s) {
    const api::ClusterInfo& c = s.cluster();
    shares_.assign(c.queues.size(), QueueShare{});
    Measure(c);
    WaterFill(c);
    for (size_t q = 0; q < shares_.size(); ++q) UpdateShare(q);

    s.Register<framework::QueueOrder>(
        [this](const api::QueueInfo& a, const api::QueueInfo& b) {
          // spec.priority first, as Volcano orders queues; then least share.
          if (a.priority != b.priority) return a.priority > b.priority ? -1 : 1;
          double sa = Of(a).share, sb = Of(b).share;
          return sa < sb ? -1 : (sa > sb ? 1 : 0);
        });
    // Above its deserved share in its dominant resource. (Volcano asks for
    // every resource at or above deserved, which lets a queue holding far
    // more cpu than it deserves stop counting as overused as soon as it
    // dips below its deserved memory.)
    s.Register<framework::Overused>(
        [this](const api::QueueInfo& q) { return Of(q).share > 1; });
    // Within its deserved share; while borrowing, within its capability.
    s.Register<framework::Allocatable>(
        [this, &s](const api::QueueInfo& q, const api::TaskInfo& t) {
          const QueueShare& qs = Of(q);
          return (qs.allocated + t.request())
              .LessEqualWhere(Borrows(s) ? qs.real_capability : qs.deserved,
                              t.request());
        });
    // Victims only from queues above their deserved share, and only while
    // they stay above it.
    s.Register<framework::Reclaimable>(
        [this, &s](const api::TaskInfo&,
                   const std::vector<api::TaskIndex>& candidates) {
          std::vector<api::Resource> left(shares_.size());
          std::vector<bool> seen(shares_.size(), false);
          std::vector<api::TaskIndex> victims;
          for (api::TaskIndex t : candidates) {
            const api::TaskInfo& task = s.cluster().tasks[t];
            int32_t q = s.cluster().jobs[task.job].queue_index;
            if (q == api::kNone || !s.cluster().queues[q].reclaimable) continue;
            if (!seen[q]) {
              left[q] = shares_[q].allocated;
              seen[q] = true;
            }
            if (left[q].AllLessEqual(shares_[q].deserved)) continue;
            left[q] -= task.request();
            victims.push_back(t);
          }
          return framework::Victims(std::move(victims));
        });
    // Admission promises only what allocate will give: a queue's running
    // pods and admitted gangs stay within its deserved share (and so its
    // capability). With preempt in the policy, lower-priority work does
    // not count: preemption makes room for this job.
    const bool preempting = s.policy().config.HasAction("preempt");
    s.Register<framework::JobEnqueueable>(
        [this, &s, preempting](const api::JobInfo& job, std::string* why) {
          int32_t q = job.queue_index;
          if (q == api::kNone) return 0;
          QueueShare& qs = shares_[q];
          api::Resource minimum = s.cluster().GangMinimum(job);
          // What the job already holds (pods bound before a restart, or
          // before its PodGroup went back to Pending) is counted in
          // `committed`; only the rest of its minimum is new.
          api::Resource extra = s.cluster().UnheldMinimum(job);
          api::Resource after = extra;
          auto from = preempting ? qs.committed.lower_bound(job.priority)
                                 : qs.committed.begin();
          for (auto it = from; it != qs.committed.end(); ++it)
            after += it->second;
          const char* counting =
              preempting ? "counting running pods and admitted gangs of this "
                           "priority or higher"
                         : "counting running pods and admitted gangs";
          if (!after.LessEqualWhere(qs.real_capability, minimum)) {
            *why = absl::StrCat("queue ", job.queue, " is full (",
                                Overshoot(after, qs.real_capability, minimum),
                                ", ", counting, ")");
            return -1;
          }
          if (!Borrows(s) && !after.LessEqualWhere(qs.deserved, minimum)) {
            *why = absl::StrCat("queue ", job.queue,
                                " has reached its deserved share (",
                                Overshoot(after, qs.deserved, minimum), ", ",
                                counting, "); allocate would not place it");
            return -1;
          }
          return 1;
        });
    s.AddAdmissionHandler([this, &s](const api::JobInfo& job) {
      if (job.queue_index == api::kNone) return;
      shares_[job.queue_index].committed[job.priority] +=
          s.cluster().UnheldMinimum(job);
    });
    s.AddEventHandler(
        {[this, &s](const api::TaskInfo& t) { Account(s, t, +1); },
         [this, &s](const api::TaskInfo& t) { Account(s, t, -1); }});
  }

  // What the queues stand at when the cycle ends, for the admin service
  // and the metrics (QueueInfo's session-written fields).
  void OnSessionClose(Session& s) override {
    for (api::QueueInfo& q : s.cluster().queues) {
      const QueueShare& qs = Of(q);
      q.standing_known = true;
      q.deserved_now = qs.deserved;
      q.allocated = qs.allocated;
      q.request = qs.request;
      q.share = qs.share;
      q.overused = qs.share > 1;
    }
  }

 private:
  QueueShare& Of(const api::QueueInfo& q) { return shares_[q.index]; }

  // "cpu would reach 12 of 10, memory would reach ..." for the resources
  // the job asks for that `after` takes past `limit`.
  static std::string Overshoot(const api::Resource& after,
                               const api::Resource& limit,
                               const api::Resource& minimum) {
    std::vector<std::string> over;
    after.ForEachShortage(limit, [&](api::ResourceId id) {
      if (minimum.Get(id) == 0) return;
      api::QuantityScale scale = api::ScaleOf(id);
      over.push_back(absl::StrCat(api::ResourceName(id), " would reach ",
                                  api::FormatQuantity(after.Get(id), scale),
                                  " of ",
                                  api::FormatQuantity(limit.Get(id), scale)));
    });
    return absl::StrJoin(over, ", ");
  }

  void Account(const Session& s, const api::TaskInfo& t, int sign) {
    int32_t q = s.cluster().jobs[t.job].queue_index;
    if (q == api::kNone) return;
    if (sign > 0) {
      shares_[q].allocated += t.request();
    } else {
      shares_[q].allocated -= t.request();
    }
    UpdateShare(q);
  }

  void UpdateShare(size_t q) {
    shares_[q].share = shares_[q].allocated.DominantShare(shares_[q].deserved);
  }

  // What each queue holds and asks for, from its jobs.
  void Measure(const api::ClusterInfo& c) {
    for (const api::JobInfo& job : c.jobs) {
      int32_t q = job.queue_index;
      if (q == api::kNone) continue;
      QueueShare& qs = shares_[q];
      api::Resource held, wants;
      for (api::TaskIndex t : job.tasks) {
        const api::TaskInfo& task = c.tasks[t];
        if (api::HoldsShare(task.status)) held += task.request();
        if (api::HoldsShare(task.status) ||
            task.status == api::TaskStatus::kPending) {
          wants += task.request();
        }
      }
      // A PodGroup whose pods are not all created yet still wants its
      // minimum (its controller creates the pods once it is admitted).
      if (static_cast<int32_t>(job.tasks.size()) < job.min_member) {
        wants.MaxWith(c.GangMinimum(job));
      }
      qs.request += wants;
      qs.allocated += held;
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
      qs.committed[job.priority] += committed;
    }
    api::Resource guaranteed;
    for (const auto& queue : c.queues) guaranteed += queue.guarantee;
    for (size_t q = 0; q < shares_.size(); ++q) {
      const api::QueueInfo& queue = c.queues[q];
      api::Resource cap = c.total_allocatable - guaranteed + queue.guarantee;
      // A capability limits only what it names (the rest is kUnlimited).
      if (queue.capability.has_value()) cap.MinWith(*queue.capability);
      shares_[q].real_capability = cap;
    }
  }

  // Weighted water-filling: hand out what is left in proportion to weight,
  // (after queues with an explicit spec.deserved),
  // cap each queue at its capability and demand, floor it at its
  // guarantee, and repeat with the queues still wanting more until
  // nothing is left or nothing changes.
  void WaterFill(const api::ClusterInfo& c) {
    api::Resource remaining = c.total_allocatable;
    // A queue that states its deserved share gets it (no more than it
    // asks for, no less than its guarantee); the rest is shared out.
    for (size_t q = 0; q < shares_.size(); ++q) {
      const api::QueueInfo& queue = c.queues[q];
      if (!queue.deserved.has_value()) continue;
      QueueShare& qs = shares_[q];
      qs.deserved = *queue.deserved;
      qs.deserved.MinWith(qs.real_capability);
      qs.deserved.MinWith(qs.request);
      qs.deserved.MaxWith(queue.guarantee);
      qs.satisfied = true;
      remaining -= qs.deserved;
    }
    remaining.MaxWith(api::Resource());
    for (int round = 0; round < 64; ++round) {
      int64_t weight = 0;
      for (size_t q = 0; q < shares_.size(); ++q) {
        if (!shares_[q].satisfied) weight += c.queues[q].weight;
      }
      if (weight == 0) break;
      api::Resource given, taken;
      for (size_t q = 0; q < shares_.size(); ++q) {
        QueueShare& qs = shares_[q];
        if (qs.satisfied) continue;
        const api::QueueInfo& queue = c.queues[q];
        api::Resource before = qs.deserved;
        qs.deserved +=
            remaining.Scaled(static_cast<double>(queue.weight) / weight);
        qs.deserved.MinWith(qs.real_capability);
        qs.deserved.MinWith(qs.request);
        qs.deserved.MaxWith(queue.guarantee);
        if (qs.request.AllLessEqual(qs.deserved) ||
            qs.real_capability.AllLessEqual(qs.deserved)) {
          qs.satisfied = true;
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
  }

  // In the actions' borrowing pass, and allowed to: past the deserved
  // share, up to the capability.
  bool Borrows(const Session& s) const { return borrowing_ && s.borrowing(); }

  const bool borrowing_;
  std::vector<QueueShare> shares_;  // by queue
};

class Proportion : public framework::Plugin {
 public:
  explicit Proportion(bool borrowing) : borrowing_(borrowing) {}

  std::unique_ptr<framework::PluginSession> OnSessionOpen(Session& s) override {
    auto state = std::make_unique<ProportionSession>(borrowing_);
    state->Register(s);
    return state;
  }

 private:
  // `borrowing: false` fences every queue at its deserved share, as
  // Volcano's proportion does.
  const bool borrowing_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments& args) {
  auto borrowing = args.GetBool("borrowing", true);
  if (!borrowing.ok()) return borrowing.status();
  return std::make_unique<Proportion>(*borrowing);
}

}  // namespace shoal::plugins::proportion
