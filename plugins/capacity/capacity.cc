#include "plugins/capacity/capacity.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "plugins/queues/queue_ledger.h"
#include "scheduler/api/queue_tree.h"
#include "scheduler/framework/session.h"

namespace shoal::plugins::capacity {
namespace {

using framework::Session;
using queues::QueueLedger;

// A queue's limits as the queue states them, resolved down the tree.
// Only what a limit names counts: an amount of kUnlimited is a resource
// it does not name.
struct QueueLimits {
  // spec.deserved, no less than the guarantee and no more than the real
  // capability. A queue that names nothing deserves nothing: it is
  // best-effort, goes after every other queue and lends all it holds.
  api::Resource deserved;
  bool best_effort = true;
  // The capability, less what siblings (at every level) are guaranteed.
  api::Resource real_capability;
  // What allocate's first pass lets the queue reach: its deserved share
  // where it names one, its real capability elsewhere (nothing at all for
  // a best-effort queue).
  api::Resource fence;
  double share = 0;
};

bool Named(const api::Resource& r, api::ResourceId id) {
  return r.Get(id) < api::kUnlimited;
}

class CapacitySession : public framework::PluginSession {
 public:
  explicit CapacitySession(const api::ClusterInfo& c)
      : ledger_(c), limits_(c.queues.size()) {}

  void Register(Session& s) {
    const api::ClusterInfo& c = s.cluster();
    const queues::TreeTop tree = queues::TopOf(c);
    if (tree.root != api::kNone) {
      QueueLimits& root = limits_[tree.root];
      root.real_capability = tree.root_capability;
      root.deserved = queues::Unlimited();
      root.best_effort = false;
      root.fence = root.real_capability;
      Resolve(c, c.queues[tree.root].children, tree.for_children);
    }
    Resolve(c, tree.top, c.total_allocatable);
    for (size_t q = 0; q < limits_.size(); ++q) UpdateShare(q);

    // spec.priority first; then least share where the queues' paths part,
    // a queue that deserves something before a best-effort one.
    s.Register<framework::QueueOrder>(
        [this, &c](const api::QueueInfo& a, const api::QueueInfo& b) {
          if (a.priority != b.priority) return a.priority > b.priority ? -1 : 1;
          return queues::CompareAtFork(c, a.index, b.index, [this](int32_t q) {
            return std::make_pair(limits_[q].share, limits_[q].best_effort);
          });
        });
    // Holding more than it deserves in a resource it deserves, or holding
    // anything without deserving anything, at the queue's own level (in
    // a tree, reclaim weighs the ancestors where the taker's path and the
    // victim's part). Such a queue does not reclaim, and reclaim may take
    // from it.
    s.Register<framework::Overused>(
        [this](const api::QueueInfo& q) { return Above(q.index); });
    // Reclaim for a task only while its queue, with the task, stays within
    // its deserved share in some resource the task asks for and the queue
    // deserves (Volcano's preemptive): a queue short of gpus reclaims gpus
    // even while it holds more cpu than it deserves.
    s.Register<framework::Preemptive>(
        [this](const api::QueueInfo& q, const api::TaskInfo& t) {
          const QueueLimits& l = limits_[q.index];
          if (l.best_effort) return false;
          api::Resource after = ledger_[q.index].allocated + t.counted();
          for (size_t id = 0; id < t.counted().size(); ++id) {
            auto rid = static_cast<api::ResourceId>(id);
            if (rid == api::kPods || t.counted().Get(rid) <= 0 ||
                !Named(l.deserved, rid) || l.deserved.Get(rid) <= 0) {
              continue;
            }
            if (after.Get(rid) <= l.deserved.Get(rid)) return true;
          }
          return false;
        });
    // Up to the deserved share at every level; while borrowing, up to the
    // real capability at every level.
    s.Register<framework::Allocatable>([this, &s, &c](const api::QueueInfo& q,
                                                      const api::TaskInfo& t) {
      if (!q.open) return false;
      const bool borrows = s.borrowing();
      bool fits = true;
      api::ForEachOnPathToRoot(c, q.index, [&](const api::QueueInfo& at) {
        const QueueLimits& l = limits_[at.index];
        const api::Resource& limit = borrows ? l.real_capability : l.fence;
        fits =
            fits && t.counted().FitsBeside(ledger_[at.index].allocated, limit);
      });
      return fits;
    });
    // Admission by capability alone, at every level, counting what the
    // queue's jobs hold and the minimums of gangs already admitted (less
    // elastic surplus), as Volcano's capacity does.
    // With reclaim in the policy, what siblings of the job's branch hold
    // beyond their deserved shares does not count at the parent: reclaim
    // gives it back once the job is admitted.
    const bool reclaiming = s.policy().config.HasAction("reclaim");
    s.Register<framework::JobEnqueueable>(
        [this, &c, reclaiming](const api::JobInfo& job, std::string* why) {
          int32_t q = job.queue_index;
          if (q == api::kNone) return 0;
          api::Resource minimum = c.GangMinimum(job);
          api::Resource extra = c.UnheldMinimum(job);
          int vote = 1;
          api::ForEachOnPathToRoot(c, q, [&](const api::QueueInfo& at) {
            if (vote < 0) return;
            api::Resource after = extra + ledger_[at.index].Committed();
            if (reclaiming && at.index != q) {
              after -= queues::SurplusBeside(
                  c, ledger_, at.index, q, [this](int32_t child) {
                    return limits_[child].best_effort ? api::Resource()
                                                      : limits_[child].deserved;
                  });
              after.MaxWith(extra);
            }
            const api::Resource& cap = limits_[at.index].real_capability;
            if (after.LessEqualWhere(cap, minimum)) return;
            *why = absl::StrCat(
                at.index == q
                    ? absl::StrCat("queue ", at.name)
                    : absl::StrCat("queue ", at.name, ", above queue ",
                                   c.queues[q].name, ","),
                " is full (", queues::Overshoot(after, cap, minimum),
                ", counting running pods and admitted gangs)");
            vote = -1;
          });
          return vote;
        });
    s.AddAdmissionHandler([this, &s](const api::JobInfo& job) {
      if (job.queue_index == api::kNone) return;
      ledger_.Admit(job.queue_index, job.priority,
                    s.cluster().UnheldMinimum(job));
    });
    // Victims: never below the queue's guarantee; a task asking only for
    // what its queue does not deserve goes first; otherwise only while
    // the queue holds more than it deserves of something the task holds.
    // A task holding nothing the reclaimer asks for frees nothing for it.
    s.Register<framework::Reclaimable>(
        [this, &c](const api::TaskInfo& reclaimer,
                   const std::vector<api::TaskIndex>& candidates) {
          std::vector<api::Resource> left(limits_.size());
          std::vector<bool> seen(limits_.size(), false);
          std::vector<api::TaskIndex> victims;
          for (api::TaskIndex t : candidates) {
            const api::TaskInfo& task = c.tasks[t];
            int32_t q = c.jobs[task.job].queue_index;
            if (q == api::kNone || !c.queues[q].reclaimable) continue;
            const api::Resource& held = task.counted();
            if (!Intersects(held, reclaimer.counted())) continue;
            if (!seen[q]) {
              left[q] = ledger_[q].allocated;
              seen[q] = true;
            }
            api::Resource after = left[q] - held;
            if (!c.queues[q].guarantee.AllLessEqual(Floor(after))) continue;
            const QueueLimits& l = limits_[q];
            if (Deserves(held, l.deserved) &&
                !AboveWhere(left[q], l.deserved, held)) {
              continue;
            }
            left[q] = after;
            victims.push_back(t);
          }
          return framework::Victims(std::move(victims));
        });
    s.AddEventHandler(
        {[this, &s](const api::TaskInfo& t) { Account(s, t, +1); },
         [this, &s](const api::TaskInfo& t) { Account(s, t, -1); }});
  }

  void OnSessionClose(Session& s) override {
    for (api::QueueInfo& q : s.cluster().queues) {
      const QueueLimits& l = limits_[q.index];
      q.standing_known = true;
      q.deserved_now = l.deserved;
      q.allocated = ledger_[q.index].allocated;
      q.request = ledger_[q.index].request;
      q.share = l.share;
      q.overused = Above(q.index);
    }
  }

 private:
  // Both ask for some resource besides the pod slot every pod takes (a
  // victim holding nothing else frees nothing the reclaimer needs).
  static bool Intersects(const api::Resource& a, const api::Resource& b) {
    for (size_t id = 0; id < a.size(); ++id) {
      auto rid = static_cast<api::ResourceId>(id);
      if (rid != api::kPods && a.Get(rid) > 0 && b.Get(rid) > 0) return true;
    }
    return false;
  }
  // The task holds some resource the queue's deserved share names.
  static bool Deserves(const api::Resource& held,
                       const api::Resource& deserved) {
    for (size_t id = 0; id < held.size(); ++id) {
      auto rid = static_cast<api::ResourceId>(id);
      if (held.Get(rid) > 0 && Named(deserved, rid)) return true;
    }
    return false;
  }
  // `held` exceeds `deserved` in some resource `where` asks for and
  // `deserved` names.
  static bool AboveWhere(const api::Resource& held,
                         const api::Resource& deserved,
                         const api::Resource& where) {
    for (size_t id = 0; id < where.size(); ++id) {
      auto rid = static_cast<api::ResourceId>(id);
      if (where.Get(rid) > 0 && Named(deserved, rid) &&
          held.Get(rid) > deserved.Get(rid)) {
        return true;
      }
    }
    return false;
  }
  static api::Resource Floor(api::Resource r) {
    r.MaxWith(api::Resource());
    return r;
  }

  bool Above(int32_t q) const {
    const QueueLimits& l = limits_[q];
    const api::Resource& held = ledger_[q].allocated;
    if (l.best_effort) return !held.IsZero();
    return AboveWhere(held, l.deserved, held);
  }

  void Account(const Session& s, const api::TaskInfo& t, int sign) {
    int32_t q = s.cluster().jobs[t.job].queue_index;
    if (q == api::kNone) return;
    ledger_.Move(q, t.counted(), sign);
    api::ForEachOnPathToRoot(s.cluster(), q, [&](const api::QueueInfo& at) {
      UpdateShare(at.index);
    });
  }

  // The dominant share over the resources the queue deserves; a
  // best-effort queue stands at 1, behind every queue still below its
  // deserved share (Volcano's reading).
  void UpdateShare(size_t q) {
    QueueLimits& l = limits_[q];
    if (l.best_effort) {
      l.share = 1;
      return;
    }
    const api::Resource& held = ledger_[static_cast<int32_t>(q)].allocated;
    double share = 0;
    for (size_t id = 0; id < l.deserved.size(); ++id) {
      auto rid = static_cast<api::ResourceId>(id);
      if (!Named(l.deserved, rid) || l.deserved.Get(rid) <= 0) continue;
      share = std::max(share, static_cast<double>(held.Get(rid)) /
                                  static_cast<double>(l.deserved.Get(rid)));
    }
    l.share = share;
  }

  // Limits of one set of siblings within `bound` (the cluster at the top,
  // the parent's real capability below), then of their children.
  void Resolve(const api::ClusterInfo& c, const std::vector<int32_t>& group,
               const api::Resource& bound) {
    api::Resource guaranteed;
    for (int32_t q : group) guaranteed += Guarantee(c, q);
    for (int32_t q : group) {
      const api::QueueInfo& queue = c.queues[q];
      QueueLimits& l = limits_[q];
      const api::Resource guarantee = Guarantee(c, q);
      l.real_capability = Floor(bound - guaranteed) + guarantee;
      l.real_capability.MinWith(bound);
      if (queue.capability.has_value()) {
        l.real_capability.MinWith(*queue.capability);
      }
      l.deserved = Deserved(c, q);
      l.best_effort = true;
      for (int id = 0; id < api::ResourceNameCount(); ++id) {
        auto rid = static_cast<api::ResourceId>(id);
        int64_t d = l.deserved.Get(rid);
        if (!Named(l.deserved, rid)) {
          if (guarantee.Get(rid) <= 0) continue;
          d = 0;
        }
        d = std::min(std::max(d, guarantee.Get(rid)),
                     l.real_capability.Get(rid));
        l.deserved.Set(rid, d);
        l.best_effort = false;
      }
      l.fence = l.best_effort ? api::Resource() : l.deserved;
      if (!l.best_effort) l.fence.MinWith(l.real_capability);
    }
    for (int32_t q : group) {
      Resolve(c, c.queues[q].children, limits_[q].real_capability);
    }
  }

  // A parent that states no deserved share deserves what its children
  // do together (Volcano's root does); a leaf without one names nothing.
  static api::Resource Deserved(const api::ClusterInfo& c, int32_t q) {
    const api::QueueInfo& queue = c.queues[q];
    if (queue.deserved.has_value()) return *queue.deserved;
    api::Resource d = queues::Unlimited();
    for (int32_t child : queue.children) {
      api::Resource cd = Deserved(c, child);
      const api::Resource cg = Guarantee(c, child);
      for (int id = 0; id < api::ResourceNameCount(); ++id) {
        auto rid = static_cast<api::ResourceId>(id);
        int64_t amount =
            Named(cd, rid) ? std::max(cd.Get(rid), cg.Get(rid)) : cg.Get(rid);
        if (!Named(cd, rid) && amount <= 0) continue;
        d.Set(rid, (Named(d, rid) ? d.Get(rid) : 0) + amount);
      }
    }
    return d;
  }

  // Likewise a parent without a guarantee is guaranteed its children's.
  static api::Resource Guarantee(const api::ClusterInfo& c, int32_t q) {
    const api::QueueInfo& queue = c.queues[q];
    if (!queue.guarantee.IsZero() || queue.children.empty()) {
      return queue.guarantee;
    }
    api::Resource g;
    for (int32_t child : queue.children) g += Guarantee(c, child);
    return g;
  }

  QueueLedger ledger_;
  std::vector<QueueLimits> limits_;  // by queue
};

class Capacity : public framework::Plugin {
 public:
  std::unique_ptr<framework::PluginSession> OnSessionOpen(Session& s) override {
    auto state = std::make_unique<CapacitySession>(s.cluster());
    state->Register(s);
    return state;
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments& args) {
  // Volcano's switches this reading has no equivalent for are refused by
  // name rather than ignored.
  auto level = args.GetInt("ancestorReclaimLevel", 0);
  if (!level.ok()) return level.status();
  if (*level != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        args.owner(), ": ancestorReclaimLevel ", *level,
        " is not implemented: reclaim checks each queue's own deserved share "
        "(level 0)"));
  }
  // Volcano's DRA quota switch. Shoal counts a pod's claimed devices
  // against its queue (as deviceclass/<class>, dra/device_quota.h) whenever
  // some queue states a quota in them, whatever this says: on is what Shoal
  // does; off (Volcano's default, so configurations write it) is taken
  // with a warning that the queues' device quotas hold anyway.
  auto dra = args.GetBool("capacity.DynamicResourceAllocationEnable", true);
  if (!dra.ok()) return dra.status();
  if (!*dra) {
    args.Warn(absl::StrCat(
        args.owner(),
        ": capacity.DynamicResourceAllocationEnable false: Shoal counts "
        "claimed devices against the queues that state a quota in them "
        "anyway"));
  }
  auto consumable = args.GetBool("capacity.DRAConsumableCapacityEnable", false);
  if (!consumable.ok()) return consumable.status();
  if (*consumable) {
    return absl::InvalidArgumentError(absl::StrCat(
        args.owner(),
        ": capacity.DRAConsumableCapacityEnable is not implemented: Shoal "
        "counts claimed devices against queues, not quotas of their "
        "capacities (<capacity>.deviceclass/<class>)"));
  }
  return std::make_unique<Capacity>();
}

}  // namespace shoal::plugins::capacity
