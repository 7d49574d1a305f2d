#include "plugins/proportion/proportion.h"

#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "plugins/queues/queue_ledger.h"
#include "scheduler/api/queue_tree.h"
#include "scheduler/framework/session.h"

namespace shoal::plugins::proportion {
namespace {

using framework::Session;
using queues::QueueLedger;

// What water-filling gives a queue, and its share of it.
struct QueueShare {
  api::Resource deserved;
  api::Resource real_capability;  // capability, less others' guarantees
  double share = 0;
  bool satisfied = false;  // water-filling is done with it
};

// Each queue's deserved share, worked out when the session opens, and
// what it holds, kept current as the session's statements move tasks.
// In a queue tree (queue_tree.h) every limit holds at every level: a
// leaf's task must fit its own share and each ancestor's.
class ProportionSession : public framework::PluginSession {
 public:
  ProportionSession(const api::ClusterInfo& c, bool borrowing)
      : borrowing_(borrowing), ledger_(c), shares_(c.queues.size()) {}

  // Registers the callbacks, which point into this object.
  void Register(Session& s) {
    const api::ClusterInfo& c = s.cluster();
    const queues::TreeTop tree = queues::TopOf(c);
    if (tree.root != api::kNone) {
      QueueShare& root = shares_[tree.root];
      root.real_capability = tree.root_capability;
      root.deserved = tree.root_capability;
      WaterFill(c, c.queues[tree.root].children, tree.for_children,
                tree.for_children);
    }
    WaterFill(c, tree.top, c.total_allocatable, c.total_allocatable);
    for (size_t q = 0; q < shares_.size(); ++q) UpdateShare(q);

    // spec.priority first, as Volcano orders queues; then least share,
    // compared where the two queues' paths part (siblings by their
    // shares of the parent's deserved).
    s.Register<framework::QueueOrder>([this, &c](const api::QueueInfo& a,
                                                 const api::QueueInfo& b) {
      if (a.priority != b.priority) return a.priority > b.priority ? -1 : 1;
      return queues::CompareAtFork(
          c, a.index, b.index, [this](int32_t q) { return shares_[q].share; });
    });
    // Above its deserved share in its dominant resource, at its own
    // level: in a tree, reclaim weighs the ancestors where the taker's
    // path and the victim's part (reclaim.cc). (Volcano asks for every
    // resource at or above deserved, which lets a queue holding far more
    // cpu than it deserves stop counting as overused as soon as it dips
    // below its deserved memory.)
    s.Register<framework::Overused>(
        [this](const api::QueueInfo& q) { return shares_[q.index].share > 1; });
    // Reclaim for a task only while its own queue, with the task, stays
    // within its deserved share in the resources the task asks for; its
    // ancestors bound it by their capabilities (Allocatable while
    // borrowing), not their shares: a queue under a parent that borrows
    // still takes its share back from its siblings.
    s.Register<framework::Preemptive>(
        [this](const api::QueueInfo& q, const api::TaskInfo& t) {
          return t.counted().FitsBeside(ledger_[q.index].allocated,
                                        shares_[q.index].deserved);
        });
    // Within its deserved share (and each ancestor's); while borrowing,
    // within its capability (and each ancestor's).
    s.Register<framework::Allocatable>(
        [this, &s, &c](const api::QueueInfo& q, const api::TaskInfo& t) {
          const bool borrows = Borrows(s);
          bool fits = true;
          api::ForEachOnPathToRoot(c, q.index, [&](const api::QueueInfo& at) {
            const QueueShare& qs = shares_[at.index];
            fits = fits && t.counted().FitsBeside(
                               ledger_[at.index].allocated,
                               borrows ? qs.real_capability : qs.deserved);
          });
          return fits;
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
              left[q] = ledger_[q].allocated;
              seen[q] = true;
            }
            if (left[q].AllLessEqual(shares_[q].deserved)) continue;
            left[q] -= task.counted();
            victims.push_back(t);
          }
          return framework::Victims(std::move(victims));
        });
    // Admission promises only what allocate will give: a queue's running
    // pods and admitted gangs stay within its deserved share (and so its
    // capability), at every level of the tree. With preempt in the
    // policy, lower-priority work does not count: preemption makes room
    // for this job.
    // With reclaim in the policy, what siblings of the job's branch hold
    // beyond their deserved shares does not count at the parent: reclaim
    // gives it back once the job is admitted.
    const bool preempting = s.policy().config.HasAction("preempt");
    const bool reclaiming = s.policy().config.HasAction("reclaim");
    s.Register<framework::JobEnqueueable>([this, &s, &c, preempting,
                                           reclaiming](const api::JobInfo& job,
                                                       std::string* why) {
      int32_t q = job.queue_index;
      if (q == api::kNone) return 0;
      api::Resource minimum = c.GangMinimum(job);
      // What the job already holds (pods bound before a restart, or
      // before its PodGroup went back to Pending) is counted in
      // `committed`; only the rest of its minimum is new.
      api::Resource extra = c.UnheldMinimum(job);
      const char* counting =
          preempting ? "counting running pods and admitted gangs of this "
                       "priority or higher"
                     : "counting running pods and admitted gangs";
      int vote = 1;
      api::ForEachOnPathToRoot(c, q, [&](const api::QueueInfo& at) {
        if (vote < 0) return;
        const queues::QueueAccount& account = ledger_[at.index];
        const QueueShare& qs = shares_[at.index];
        api::Resource after =
            extra + (preempting ? account.CommittedFrom(job.priority)
                                : account.Committed());
        if (reclaiming && at.index != q) {
          after -= queues::SurplusBeside(
              c, ledger_, at.index, q,
              [this](int32_t child) { return shares_[child].deserved; });
          after.MaxWith(extra);
        }
        std::string whose = Whose(c, at.index, q);
        if (!after.LessEqualWhere(qs.real_capability, minimum)) {
          *why = absl::StrCat(
              whose, " is full (",
              queues::Overshoot(after, qs.real_capability, minimum), ", ",
              counting, ")");
          vote = -1;
        } else if (!Borrows(s) && !after.LessEqualWhere(qs.deserved, minimum)) {
          *why = absl::StrCat(whose, " has reached its deserved share (",
                              queues::Overshoot(after, qs.deserved, minimum),
                              ", ", counting, "); allocate would not place it");
          vote = -1;
        }
      });
      return vote;
    });
    s.AddAdmissionHandler([this, &s](const api::JobInfo& job) {
      if (job.queue_index == api::kNone) return;
      ledger_.Admit(job.queue_index, job.priority,
                    s.cluster().UnheldMinimum(job));
    });
    s.AddEventHandler(
        {[this, &s](const api::TaskInfo& t) { Account(s, t, +1); },
         [this, &s](const api::TaskInfo& t) { Account(s, t, -1); }});
  }

  // What the queues stand at when the cycle ends, for the admin service
  // and the metrics (QueueInfo's session-written fields).
  void OnSessionClose(Session& s) override {
    for (api::QueueInfo& q : s.cluster().queues) {
      const QueueShare& qs = shares_[q.index];
      q.standing_known = true;
      q.deserved_now = qs.deserved;
      q.allocated = ledger_[q.index].allocated;
      q.request = ledger_[q.index].request;
      q.share = qs.share;
      q.overused = qs.share > 1;
    }
  }

 private:
  // "queue ml" for the job's own queue; "queue eng, above queue ml" for
  // an ancestor whose limit holds the job.
  static std::string Whose(const api::ClusterInfo& c, int32_t at, int32_t own) {
    if (at == own) return absl::StrCat("queue ", c.queues[own].name);
    return absl::StrCat("queue ", c.queues[at].name, ", above queue ",
                        c.queues[own].name, ",");
  }

  void Account(const Session& s, const api::TaskInfo& t, int sign) {
    int32_t q = s.cluster().jobs[t.job].queue_index;
    if (q == api::kNone) return;
    ledger_.Move(q, t.counted(), sign);
    api::ForEachOnPathToRoot(s.cluster(), q, [&](const api::QueueInfo& at) {
      UpdateShare(at.index);
    });
  }

  void UpdateShare(size_t q) {
    shares_[q].share = ledger_[static_cast<int32_t>(q)].allocated.DominantShare(
        shares_[q].deserved);
  }

  // Weighted water-filling among siblings: hand out `remaining` (the
  // cluster at the top, the parent's deserved share below) in proportion
  // to weight, after queues with an explicit spec.deserved; cap each
  // queue at its capability and demand, floor it at its guarantee, and
  // repeat with the queues still wanting more until nothing is left or
  // nothing changes. Then each queue's children share what it got.
  // `bound` is what the siblings' real capabilities start from: the
  // cluster, or the parent's real capability.
  void WaterFill(const api::ClusterInfo& c, const std::vector<int32_t>& group,
                 api::Resource remaining, const api::Resource& bound) {
    if (group.empty()) return;
    api::Resource guaranteed;
    for (int32_t q : group) guaranteed += c.queues[q].guarantee;
    for (int32_t q : group) {
      const api::QueueInfo& queue = c.queues[q];
      api::Resource cap = bound - guaranteed + queue.guarantee;
      // A capability limits only what it names (the rest is kUnlimited).
      if (queue.capability.has_value()) cap.MinWith(*queue.capability);
      shares_[q].real_capability = cap;
    }
    // A queue that states its deserved share gets it (no more than it
    // asks for, no less than its guarantee); the rest is shared out.
    for (int32_t q : group) {
      const api::QueueInfo& queue = c.queues[q];
      if (!queue.deserved.has_value()) continue;
      QueueShare& qs = shares_[q];
      qs.deserved = *queue.deserved;
      qs.deserved.MinWith(qs.real_capability);
      qs.deserved.MinWith(ledger_[q].request);
      qs.deserved.MaxWith(queue.guarantee);
      qs.satisfied = true;
      remaining -= qs.deserved;
    }
    remaining.MaxWith(api::Resource());
    for (int round = 0; round < 64; ++round) {
      int64_t weight = 0;
      for (int32_t q : group) {
        if (!shares_[q].satisfied) weight += c.queues[q].weight;
      }
      if (weight == 0) break;
      api::Resource given, taken;
      for (int32_t q : group) {
        QueueShare& qs = shares_[q];
        if (qs.satisfied) continue;
        const api::QueueInfo& queue = c.queues[q];
        const api::Resource& request = ledger_[q].request;
        api::Resource before = qs.deserved;
        qs.deserved +=
            remaining.Scaled(static_cast<double>(queue.weight) / weight);
        qs.deserved.MinWith(qs.real_capability);
        qs.deserved.MinWith(request);
        qs.deserved.MaxWith(queue.guarantee);
        if (request.AllLessEqual(qs.deserved) ||
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
    for (int32_t q : group) {
      WaterFill(c, c.queues[q].children, shares_[q].deserved,
                shares_[q].real_capability);
    }
  }

  // In the actions' borrowing pass, and allowed to: past the deserved
  // share, up to the capability.
  bool Borrows(const Session& s) const { return borrowing_ && s.borrowing(); }

  const bool borrowing_;
  QueueLedger ledger_;
  std::vector<QueueShare> shares_;  // by queue
};

class Proportion : public framework::Plugin {
 public:
  explicit Proportion(bool borrowing) : borrowing_(borrowing) {}

  std::unique_ptr<framework::PluginSession> OnSessionOpen(Session& s) override {
    auto state = std::make_unique<ProportionSession>(s.cluster(), borrowing_);
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
